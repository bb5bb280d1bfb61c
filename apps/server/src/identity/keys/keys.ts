import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type Scope, SCOPES } from '@rtcscope/protocol';
import { createOrganization } from '../organizations/organizations.js';
import type { Database, Db } from '../../db/database.js';
import type { PrismaClient } from '../../generated/prisma/client.js';

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

/**
 * A project with its keys, for operators and tests: in its own new organization (named like it) unless
 * one is given. Its API key, named "default", has every scope.
 */
export async function createProject(db: Database, name: string, organizationId?: string): Promise<NewProject> {
  const apiKey = newKey('rk');
  return db.prisma.$transaction(async (tx) => {
    const orgId = organizationId ?? (await createOrganization(tx, name, null));
    const project = await addProject(tx, orgId, name);
    await tx.apiKey.create({ data: { projectId: project.id, name: 'default', hash: hashKey(apiKey), scopes: [...SCOPES] } });
    return { projectId: project.id, name, ingestKey: project.ingestKey, apiKey };
  });
}

/** A new project of an organization, with its publishable ingest key, in the caller's transaction. */
export async function addProject(db: Db, organizationId: string, name: string): Promise<{ id: string; ingestKey: string }> {
  return db.project.create({
    data: { id: randomUUID(), organizationId, name: name.trim(), ingestKey: newKey('ik') },
    select: { id: true, ingestKey: true },
  });
}

/** What an API key opens: its project (and organization), as which key, with which scopes. */
export interface ApiKeyAccess {
  keyId: number;
  name: string;
  projectId: string;
  organizationId: string;
  scopes: Scope[];
}

interface CacheEntry<T> {
  value: T | null;
  expires: number;
}

/** What an ingest key opens: its project, and that project's own ingest and live-call limits (null: the deployment's). */
export interface IngestProject {
  projectId: string;
  ingestLimit: number | null;
  liveCallLimit: number | null;
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
      const row = await this.prisma.project.findUnique({
        where: { ingestKey: key },
        select: { id: true, ingestLimit: true, liveCallLimit: true },
      });
      return row ? { projectId: row.id, ingestLimit: row.ingestLimit, liveCallLimit: row.liveCallLimit } : null;
    });
  }

  api(key: string): Promise<ApiKeyAccess | null> {
    const hash = hashKey(key);
    return this.cached(`a:${hash}`, async () => {
      // Marked as used when looked up, in the same round trip, so "last used" is right to within the cache's minute.
      const rows = await this.prisma.$queryRaw<ApiKeyAccess[]>`
        UPDATE api_key k SET last_used_at = now() FROM project p WHERE k.hash = ${hash} AND p.id = k.project_id
        RETURNING k.id::int AS "keyId", k.name, k.project_id AS "projectId", p.organization_id AS "organizationId", k.scopes`;
      return rows[0] ?? null;
    });
  }

  /** Forgets a project's keys, so that their next use asks the database: an operator changed the project. */
  forgetProject(projectId: string): void {
    this.forgets++;
    for (const [cacheKey, entry] of this.cache) {
      if ((entry.value as IngestProject | ApiKeyAccess | null)?.projectId === projectId) this.cache.delete(cacheKey);
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
