import type { ApiKeyInfo, Scope } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { hashKey, newKey } from './keys.js';

/** A project's named, scoped API keys, as the API shows them (never the keys: only their hashes are kept). */

const info = (k: ApiKey, currentId: number | null): ApiKeyInfo => ({
  id: Number(k.id),
  name: k.name,
  scopes: k.scopes as Scope[],
  createdAt: k.createdAt.getTime(),
  lastUsedAt: k.lastUsedAt?.getTime() ?? null,
  current: Number(k.id) === currentId,
});

/** The project's keys; `currentId` marks the one the request was made with. */
export async function listApiKeys(db: Db, projectId: string, currentId: number | null): Promise<ApiKeyInfo[]> {
  const keys = await db.apiKey.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
  return keys.map((k) => info(k, currentId));
}

/**
 * A new key, shown this once, made by a person (`madeBy`) or with a key (`currentId`): a key made with a
 * key has the same maker, so that every key a person made, however, ends with their right to make it.
 */
export async function createApiKey(
  db: Db,
  projectId: string,
  name: string,
  scopes: Scope[],
  currentId: number | null,
  madeBy: string | null,
): Promise<{ key: ApiKeyInfo; apiKey: string }> {
  const apiKey = newKey('rk');
  const createdBy =
    madeBy ??
    (currentId === null
      ? null
      : ((await db.apiKey.findUnique({ where: { id: currentId }, select: { createdBy: true } }))?.createdBy ?? null));
  const key = await db.apiKey.create({ data: { projectId, name: name.trim(), hash: hashKey(apiKey), scopes, createdBy } });
  return { key: info(key, currentId), apiKey };
}

/** Revokes the keys a person made in an organization's projects (they lost the right to make them); their names. */
export async function revokeKeysMadeBy(db: Db, organizationId: string, userId: string): Promise<string[]> {
  const where = { createdBy: userId, project: { organizationId } };
  const keys = await db.apiKey.findMany({ where, select: { name: true }, orderBy: { id: 'asc' } });
  await db.apiKey.deleteMany({ where });
  return keys.map((k) => k.name);
}

/**
 * Revokes a key of the project: its name, or why not ('unknown' id, or the 'last' key of a project whose
 * organization has no members yet, which would leave nobody a way in).
 */
export async function revokeApiKey(db: Db, projectId: string, id: number): Promise<{ revoked: string } | 'unknown' | 'last'> {
  // Locked, so that two revocations at once cannot take the last two keys (Prisma Client takes no row locks).
  const keys = await db.$queryRaw<
    { id: number; name: string }[]
  >`SELECT id::int AS id, name FROM api_key WHERE project_id = ${projectId}::uuid FOR UPDATE`;
  const key = keys.find((k) => k.id === id);
  if (!key) return 'unknown';
  if (keys.length === 1 && !(await db.membership.count({ where: { organization: { projects: { some: { id: projectId } } } }, take: 1 })))
    return 'last';
  await db.apiKey.delete({ where: { id } });
  return { revoked: key.name };
}
