import type { LiveKitSettings, LiveKitSettingsInfo } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';

/** The project's LiveKit key, without its secret; null when none is set. */
export async function liveKitSettings(db: Db, projectId: string): Promise<LiveKitSettingsInfo['livekit']> {
  const row = await db.projectLivekit.findUnique({ where: { projectId }, select: { apiKey: true, updatedAt: true } });
  return row && { apiKey: row.apiKey, updatedAt: row.updatedAt.getTime() };
}

/** The project's LiveKit key with its secret, to verify webhooks with; null when none is set. */
export function liveKitSecret(db: Db, projectId: string): Promise<{ apiKey: string; secret: string } | null> {
  return db.projectLivekit.findUnique({ where: { projectId }, select: { apiKey: true, secret: true } });
}

/** Sets (or replaces) the project's LiveKit key and secret. */
export async function setLiveKitSettings(db: Db, projectId: string, s: LiveKitSettings): Promise<void> {
  const data = { apiKey: s.apiKey, secret: s.apiSecret, updatedAt: new Date() };
  await db.projectLivekit.upsert({ where: { projectId }, create: { projectId, ...data }, update: data });
}

/** Removes the project's LiveKit key; false when it had none. */
export async function removeLiveKitSettings(db: Db, projectId: string): Promise<boolean> {
  return (await db.projectLivekit.deleteMany({ where: { projectId } })).count === 1;
}
