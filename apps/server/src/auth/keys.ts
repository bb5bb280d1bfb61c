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

interface CacheEntry {
  projectId: string | null;
  expires: number;
}

/**
 * Resolves keys to projects, remembering answers briefly so every write and read is checked without a
 * database round trip each time. Unknown keys are remembered for less time than known ones.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly ttlMs = 60_000,
  ) {}

  ingest(key: string): Promise<string | null> {
    return this.cached(`i:${key}`, async () => (await this.prisma.project.findUnique({ where: { ingestKey: key }, select: { id: true } }))?.id ?? null);
  }

  api(key: string): Promise<string | null> {
    return this.cached(`a:${hashKey(key)}`, async () => {
      const row = await this.prisma.apiKey.findUnique({ where: { hash: hashKey(key) }, select: { projectId: true } });
      return row?.projectId ?? null;
    });
  }

  private async cached(cacheKey: string, load: () => Promise<string | null>): Promise<string | null> {
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.expires > now) return hit.projectId;
    const projectId = await load();
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { projectId, expires: now + (projectId ? this.ttlMs : 5000) });
    return projectId;
  }
}
