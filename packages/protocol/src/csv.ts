/**
 * A CSV cell: text quoted where it holds a comma, a quote or a line break; an unknown value empty. Text a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is
 * kept as text by a leading `'` (OWASP's advice): names, e-mails and metadata come from users.
 * Numbers are numbers, written as they are.
 */
function cell(v: string | number | null): string {
  if (v === null) return '';
  const text = typeof v === 'string' && /^[=+\-@\t\r]/.test(v) ? `'${v}` : String(v);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV the API and the dashboard export (RFC 4180, a header line first, `\n` line ends). */
export function toCsvText(header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  return `${[header, ...rows].map((r) => r.map(cell).join(',')).join('\n')}\n`;
}
