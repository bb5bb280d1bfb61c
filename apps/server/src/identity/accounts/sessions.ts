import Tokens from '@fastify/csrf';
import type { SessionInfo } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';
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

const DAY_MS = 86_400_000;

/** Opens a session for a person: the cookie's token, shown this once. */
export async function openSession(
  db: Db,
  userId: string,
  method: SessionMethod,
  from: { ip: string; userAgent: string | undefined },
): Promise<string> {
  const token = newToken('ss');
  await db.userSession.create({
    data: {
      tokenHash: hashKey(token),
      userId,
      expiresAt: new Date(Date.now() + IDLE_DAYS * DAY_MS),
      ip: from.ip,
      userAgent: from.userAgent?.slice(0, 300) ?? null,
      method,
      csrfSecret: csrf.secretSync(),
    },
  });
  return token;
}

/** The live session a cookie's token opens, or null (unknown, revoked or expired); keeps it alive. */
export async function sessionOf(db: Db, token: string): Promise<Session | null> {
  const now = Date.now();
  const row = await db.userSession.findFirst({
    where: { tokenHash: hashKey(token), revokedAt: null, expiresAt: { gt: new Date(now) } },
    select: { id: true, userId: true, csrfSecret: true, createdAt: true, lastSeenAt: true, user: { select: { email: true, name: true } } },
  });
  if (!row) return null;
  if (row.lastSeenAt.getTime() < now - TOUCH_EVERY_S * 1000) {
    await db.userSession.update({
      where: { id: row.id },
      data: {
        lastSeenAt: new Date(now),
        expiresAt: new Date(Math.min(row.createdAt.getTime() + ABSOLUTE_DAYS * DAY_MS, now + IDLE_DAYS * DAY_MS)),
      },
    });
  }
  return { id: Number(row.id), userId: row.userId, email: row.user.email, name: row.user.name, csrfSecret: row.csrfSecret };
}

/** A token for the page to send back as `x-csrf-token`; a new one each time, all good for the session. */
export function csrfToken(session: Session): string {
  return csrf.create(session.csrfSecret, String(session.id));
}

export function csrfTokenValid(session: Session, token: string | undefined): boolean {
  return typeof token === 'string' && csrf.verify(session.csrfSecret, token, String(session.id));
}

export async function revokeSession(db: Db, userId: string, sessionId: number): Promise<boolean> {
  const { count } = await db.userSession.updateMany({ where: { id: sessionId, userId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count === 1;
}

/** Ends the session a token opened, if it is still open (the one a browser had when it signed in again). */
export async function revokeSessionByToken(db: Db, token: string): Promise<void> {
  await db.userSession.updateMany({ where: { tokenHash: hashKey(token), revokedAt: null }, data: { revokedAt: new Date() } });
}

/** Ends every session of a person but `keep` (their password changed, or they were removed everywhere). */
export async function revokeSessionsOf(db: Db, userId: string, keep: number | null = null): Promise<void> {
  await db.userSession.updateMany({
    where: { userId, revokedAt: null, ...(keep === null ? {} : { id: { not: keep } }) },
    data: { revokedAt: new Date() },
  });
}

export async function listSessions(db: Db, userId: string, currentId: number): Promise<SessionInfo[]> {
  const rows = await db.userSession.findMany({
    where: { userId, revokedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { lastSeenAt: 'desc' },
  });
  return rows.map((r) => ({
    id: Number(r.id),
    createdAt: r.createdAt.getTime(),
    lastSeenAt: r.lastSeenAt.getTime(),
    ip: r.ip,
    userAgent: r.userAgent,
    method: r.method,
    current: Number(r.id) === currentId,
  }));
}
