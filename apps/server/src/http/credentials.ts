/** The token of an `Authorization: Bearer …` header (the scheme's name in any case, RFC 9110), or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/**
 * The password of an `Authorization: Basic …` header (RFC 7617), or null: what a client that can send
 * only basic auth (Janus's event handlers) sends an API key as; the user name is not read.
 */
export function basicPassword(header: string | undefined): string | null {
  const match = /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}
