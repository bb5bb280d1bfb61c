import { randomBytes } from 'node:crypto';

/**
 * Secrets handed to a browser or a mailbox: sessions (ss_), single-use sign-in links (sl_), password
 * resets (pr_) and invitations (iv_). Only their SHA-256 (`hashKey`) is stored; the prefixes let the
 * logs' redaction find them (http/logging.ts).
 */
export type TokenKind = 'ss' | 'sl' | 'pr' | 'iv';

export function newToken(kind: TokenKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}
