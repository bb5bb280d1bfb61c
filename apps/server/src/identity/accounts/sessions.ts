import Tokens from '@fastify/csrf';
import type { SessionInfo } from '@rtcscope/protocol';
import type pg from 'pg';
import { hashKey } from '../keys/keys.js';
import { newToken } from './tokens.js';

/** A session ends after this long unused, and at the latest this long after it was opened. */
export const IDLE_DAYS = 14;
export const ABSOLUTE_DAYS = 30;
/** Last-seen is written at most this often, so a dashboard's requests do not each write a row. */
const TOUCH_EVERY_S = 60;

export type SessionMethod = 'password' | 'sso' | 'link' | 'invitation' | 'reset' | 'sign-up';

export interface Session {
  id: number;
  userId: string;
  email: string;
  name: string;
  csrfSecret: string;
}

// Tokens bound to the session's id as well as made from its secret.
const csrf = new Tokens({ userInfo: true });

/** Opens a session for a person: the cookie's token, shown this once. */
export async function openSession(
  db: pg.ClientBase | pg.Pool,
  userId: string,
  method: SessionMethod,
  from: { ip: string; userAgent: string | undefined },
): Promise<string> {
  const token = newToken('ss');
  await db.query(
    `INSERT INTO user_session (token_hash, user_id, expires_at, ip, user_agent, method, csrf_secret)
     VALUES ($1, $2, now() + make_interval(days => $3), $4, $5, $6, $7)`,
    [hashKey(token), userId, IDLE_DAYS, from.ip, from.userAgent?.slice(0, 300) ?? null, method, csrf.secretSync()],
  );
  return token;
}

/** The live session a cookie's token opens, or null (unknown, revoked or expired); keeps it alive. */
export async function sessionOf(pool: pg.Pool, token: string): Promise<Session | null> {
  const { rows } = await pool.query<Session & { stale: boolean }>(
    `SELECT s.id::int AS id, s.user_id AS "userId", u.email, u.name, s.csrf_secret AS "csrfSecret",
       s.last_seen_at < now() - make_interval(secs => $2) AS stale
     FROM user_session s JOIN app_user u ON u.id = s.user_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
    [hashKey(token), TOUCH_EVERY_S],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.stale) {
    await pool.query(
      `UPDATE user_session SET last_seen_at = now(),
         expires_at = least(created_at + make_interval(days => $2), now() + make_interval(days => $3))
       WHERE id = $1`,
      [row.id, ABSOLUTE_DAYS, IDLE_DAYS],
    );
  }
  const { stale: _, ...session } = row;
  return session;
}

/** A token for the page to send back as `x-csrf-token`; a new one each time, all good for the session. */
export function csrfToken(session: Session): string {
  return csrf.create(session.csrfSecret, String(session.id));
}

export function csrfTokenValid(session: Session, token: string | undefined): boolean {
  return typeof token === 'string' && csrf.verify(session.csrfSecret, token, String(session.id));
}

export async function revokeSession(db: pg.ClientBase | pg.Pool, userId: string, sessionId: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE user_session SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL', [
    sessionId,
    userId,
  ]);
  return rowCount === 1;
}

/** Ends the session a token opened, if it is still open (the one a browser had when it signed in again). */
export async function revokeSessionByToken(db: pg.ClientBase, token: string): Promise<void> {
  await db.query('UPDATE user_session SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [hashKey(token)]);
}

/** Ends every session of a person but `keep` (their password changed, or they were removed everywhere). */
export async function revokeSessionsOf(db: pg.ClientBase | pg.Pool, userId: string, keep: number | null = null): Promise<void> {
  await db.query('UPDATE user_session SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2', [
    userId,
    keep,
  ]);
}

export async function listSessions(pool: pg.Pool, userId: string, currentId: number): Promise<SessionInfo[]> {
  const { rows } = await pool.query<{ id: number; created: Date; seen: Date; ip: string | null; ua: string | null; method: string }>(
    `SELECT id::int AS id, created_at AS created, last_seen_at AS seen, ip, user_agent AS ua, method FROM user_session
     WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY last_seen_at DESC`,
    [userId],
  );
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created.getTime(),
    lastSeenAt: r.seen.getTime(),
    ip: r.ip,
    userAgent: r.ua,
    method: r.method,
    current: r.id === currentId,
  }));
}
