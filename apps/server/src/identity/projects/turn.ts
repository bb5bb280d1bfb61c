import { TURN_TTL_DEFAULT_S, type TurnSettings, type TurnSettingsInfo } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';

/** The project's TURN servers, without the secret; null when none are set. */
export async function turnSettings(db: Db, projectId: string): Promise<TurnSettingsInfo['turn']> {
  const row = await db.projectTurn.findUnique({ where: { projectId }, select: { urls: true, ttlS: true, updatedAt: true } });
  return row && { urls: row.urls, ttlS: row.ttlS, updatedAt: row.updatedAt.getTime() };
}

/** The project's TURN servers with their secret, to sign credentials with; null when none are set. */
export function turnSettingsWithSecret(db: Db, projectId: string): Promise<{ urls: string[]; secret: string; ttlS: number } | null> {
  return db.projectTurn.findUnique({ where: { projectId }, select: { urls: true, secret: true, ttlS: true } });
}

/** Sets (or replaces) the project's TURN servers and their shared secret. */
export async function setTurnSettings(db: Db, projectId: string, s: TurnSettings): Promise<void> {
  const data = { urls: s.urls, secret: s.secret, ttlS: s.ttlS ?? TURN_TTL_DEFAULT_S, updatedAt: new Date() };
  await db.projectTurn.upsert({ where: { projectId }, create: { projectId, ...data }, update: data });
}

/** Removes the project's TURN servers; false when it had none. */
export async function removeTurnSettings(db: Db, projectId: string): Promise<boolean> {
  return (await db.projectTurn.deleteMany({ where: { projectId } })).count === 1;
}
