import type pg from 'pg';
import { hashKey } from '../keys/keys.js';
import { newToken } from './tokens.js';

/** What single-use links to an account are for, and how long each is good. */
export const LINK_HOURS = { reset: 1, 'sign-in': 24 } as const;
export type LinkKind = keyof typeof LINK_HOURS;

/** A new single-use link's token for a person; only its hash is kept. */
export async function makeLink(db: pg.ClientBase | pg.Pool, userId: string, kind: LinkKind): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken(kind === 'reset' ? 'pr' : 'sl');
  const { rows } = await db.query<{ expiresAt: Date }>(
    `INSERT INTO user_token (kind, token_hash, user_id, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4)) RETURNING expires_at AS "expiresAt"`,
    [kind, hashKey(token), userId, LINK_HOURS[kind]],
  );
  return { token, expiresAt: rows[0]!.expiresAt };
}

/** Uses a link up, in the caller's transaction: its person, or null (unknown, used, expired, another kind). */
export async function redeemLink(client: pg.ClientBase, token: string, kind: LinkKind): Promise<string | null> {
  const { rows } = await client.query<{ userId: string }>(
    `UPDATE user_token SET used_at = now() WHERE token_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > now() RETURNING user_id AS "userId"`,
    [hashKey(token), kind],
  );
  return rows[0]?.userId ?? null;
}

/** The page a link opens, with the token in the fragment (browsers do not send it, so no log holds it). */
export function linkUrl(base: string, page: 'invite' | 'reset-password' | 'sign-in-link', token: string): string {
  return `${base.replace(/\/$/, '')}/${page}#token=${token}`;
}
