import type { Db } from '../../db/database.js';
import { hashKey } from '../keys/keys.js';
import { newToken } from './tokens.js';

/** What single-use links to an account are for, and how long each is good. */
export const LINK_HOURS = { reset: 1, 'sign-in': 24 } as const;
export type LinkKind = keyof typeof LINK_HOURS;

/** A new single-use link's token for a person; only its hash is kept. */
export async function makeLink(db: Db, userId: string, kind: LinkKind): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken(kind === 'reset' ? 'pr' : 'sl');
  const { expiresAt } = await db.userToken.create({
    data: { kind, tokenHash: hashKey(token), userId, expiresAt: new Date(Date.now() + LINK_HOURS[kind] * 3_600_000) },
  });
  return { token, expiresAt };
}

/** Uses a link up, in the caller's transaction: its person, or null (unknown, used, expired, another kind). */
export async function redeemLink(db: Db, token: string, kind: LinkKind): Promise<string | null> {
  // One statement, so that two redemptions at once cannot both find the link unused.
  const rows = await db.$queryRaw<{ userId: string }[]>`
    UPDATE user_token SET used_at = now() WHERE token_hash = ${hashKey(token)} AND kind = ${kind} AND used_at IS NULL AND expires_at > now()
    RETURNING user_id AS "userId"`;
  return rows[0]?.userId ?? null;
}

/** The page a link opens, with the token in the fragment (browsers do not send it, so no log holds it). */
export function linkUrl(base: string, page: 'invite' | 'reset-password' | 'sign-in-link', token: string): string {
  return `${base.replace(/\/$/, '')}/${page}#token=${token}`;
}
