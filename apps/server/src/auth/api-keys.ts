import type { ApiKeyInfo } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import { hashKey, newKey } from './keys.js';

/** A project's named API keys, as the API shows them (never the keys: only their hashes are kept). */

const info = (k: { id: bigint; name: string; hash: string; createdAt: Date; lastUsedAt: Date | null }, currentHash: string): ApiKeyInfo => ({
  id: Number(k.id),
  name: k.name,
  createdAt: k.createdAt.getTime(),
  lastUsedAt: k.lastUsedAt?.getTime() ?? null,
  current: k.hash === currentHash,
});

/** The project's keys; `currentHash` marks the one the request was made with. */
export async function listApiKeys(db: Database, projectId: string, currentHash: string): Promise<ApiKeyInfo[]> {
  const keys = await db.prisma.apiKey.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
  return keys.map((k) => info(k, currentHash));
}

/** A new key, shown this once. */
export async function createApiKey(db: Database, projectId: string, name: string, currentHash: string): Promise<{ key: ApiKeyInfo; apiKey: string }> {
  const apiKey = newKey('rk');
  const key = await db.prisma.apiKey.create({ data: { projectId, name: name.trim(), hash: hashKey(apiKey) } });
  return { key: info(key, currentHash), apiKey };
}

/** Revokes a key of the project: 'revoked', or why not ('unknown' id, or the project's 'last' key). */
export async function revokeApiKey(db: Database, projectId: string, id: number): Promise<'revoked' | 'unknown' | 'last'> {
  return db.prisma.$transaction(async (tx) => {
    // Locked, so that two revocations at once cannot take the last two keys.
    const keys = await tx.$queryRaw<{ id: bigint }[]>`SELECT id FROM api_key WHERE project_id = ${projectId}::uuid FOR UPDATE`;
    if (!keys.some((k) => Number(k.id) === id)) return 'unknown';
    if (keys.length === 1) return 'last';
    await tx.apiKey.delete({ where: { id } });
    return 'revoked';
  });
}
