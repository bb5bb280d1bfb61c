/** The token of an `Authorization: Bearer …` header (the scheme's name in any case, RFC 9110), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match ? match[1]! : null;
}
