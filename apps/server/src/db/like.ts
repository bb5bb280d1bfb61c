/**
 * A text matched as itself by LIKE and ILIKE. Prisma Client's `startsWith`, `contains` and insensitive
 * `equals` send the value as the pattern: a person's `%` or `_` would match other rows.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
