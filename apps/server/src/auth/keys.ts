import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';

export function newKey(prefix: 'ik' | 'rk' | 'at'): string {
  return `${prefix}_${randomBytes(prefix === 'ik' ? 18 : 24).toString('base64url')}`;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface NewProject {
  projectId: string;
  name: string;
  ingestKey: string;
  /** Shown once; only its hash is stored. */
  apiKey: string;
}

export async function createProject(prisma: PrismaClient, name: string): Promise<NewProject> {
  const projectId = randomUUID();
  const ingestKey = newKey('ik');
  const apiKey = newKey('rk');
  await prisma.project.create({
    data: { id: projectId, name, ingestKey, apiKeys: { create: { name: 'default', hash: hashKey(apiKey) } } },
  });
  return { projectId, name, ingestKey, apiKey };
}

interface CacheEntry<T> {
  value: T | null;
  expires: number;
}

/** What an ingest key opens: its project, and that project's own ingest limit (null: the deployment's). */
export interface IngestProject {
  projectId: string;
  ingestLimit: number | null;
}

/**
 * Resolves keys to projects, remembering answers briefly so every write and read is checked without a
 * database round trip each time. Unknown keys are remembered for less time than known ones.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry<unknown>>();
  /** Counts forgets: a lookup that was under way during one may have read what was just changed, and is not remembered. */
  private forgets = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly ttlMs = 60_000,
  ) {}

  ingest(key: string): Promise<IngestProject | null> {
    return this.cached(`i:${key}`, async () => {
      const row = await this.prisma.project.findUnique({ where: { ingestKey: key }, select: { id: true, ingestLimit: true } });
      return row ? { projectId: row.id, ingestLimit: row.ingestLimit } : null;
    });
  }

  api(key: string): Promise<string | null> {
    const hash = hashKey(key);
    return this.cached(`a:${hash}`, async () => {
      // Marked as used when looked up, in the same round trip, so "last used" is right to within the cache's minute.
      const rows = await this.prisma.$queryRaw<{ project_id: string }[]>`UPDATE api_key SET last_used_at = now() WHERE hash = ${hash} RETURNING project_id`;
      return rows[0]?.project_id ?? null;
    });
  }

  /** Forgets a project's keys, so that their next use asks the database: an operator changed the project. */
  forgetProject(projectId: string): void {
    this.forgets++;
    for (const [cacheKey, entry] of this.cache) {
      const value = entry.value as IngestProject | string | null;
      if (value === projectId || (typeof value === 'object' && value?.projectId === projectId)) this.cache.delete(cacheKey);
    }
  }

  /** Forgets every key: changes may have been missed (the notices' connection was lost). */
  forgetAll(): void {
    this.forgets++;
    this.cache.clear();
  }

  private async cached<T>(cacheKey: string, load: () => Promise<T | null>): Promise<T | null> {
    const now = Date.now();
    const hit = this.cache.get(cacheKey) as CacheEntry<T> | undefined;
    if (hit && hit.expires > now) return hit.value;
    const forgets = this.forgets;
    const value = await load();
    if (forgets !== this.forgets) return value;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { value, expires: now + (value ? this.ttlMs : 5000) });
    return value;
  }
}
