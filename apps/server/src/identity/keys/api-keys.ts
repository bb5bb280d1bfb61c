import type { ApiKeyInfo, Scope } from '@rtcscope/protocol';
import type pg from 'pg';
import { hashKey, newKey } from './keys.js';

/** A project's named, scoped API keys, as the API shows them (never the keys: only their hashes are kept). */

interface Row {
  id: number;
  name: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
}
const COLUMNS = 'id::int AS id, name, scopes, created_at, last_used_at';

const info = (k: Row, currentId: number | null): ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes,
  createdAt: k.created_at.getTime(),
  lastUsedAt: k.last_used_at?.getTime() ?? null,
  current: k.id === currentId,
});

/** The project's keys; `currentId` marks the one the request was made with. */
export async function listApiKeys(db: pg.Pool, projectId: string, currentId: number | null): Promise<ApiKeyInfo[]> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM api_key WHERE project_id = $1 ORDER BY id`, [projectId]);
  return rows.map((k) => info(k, currentId));
}

/**
 * A new key, shown this once, made by a person (`madeBy`) or with a key (`currentId`): a key made with a
 * key has the same maker, so that every key a person made, however, ends with their right to make it.
 */
export async function createApiKey(
  client: pg.ClientBase,
  projectId: string,
  name: string,
  scopes: Scope[],
  currentId: number | null,
  madeBy: string | null,
): Promise<{ key: ApiKeyInfo; apiKey: string }> {
  const apiKey = newKey('rk');
  const { rows } = await client.query<Row>(
    `INSERT INTO api_key (project_id, name, hash, scopes, created_by)
     VALUES ($1, $2, $3, $4, coalesce($5::uuid, (SELECT created_by FROM api_key WHERE id = $6))) RETURNING ${COLUMNS}`,
    [projectId, name.trim(), hashKey(apiKey), scopes, madeBy, currentId],
  );
  return { key: info(rows[0]!, currentId), apiKey };
}

/** Revokes the keys a person made in an organization's projects (they lost the right to make them); their names. */
export async function revokeKeysMadeBy(client: pg.ClientBase, organizationId: string, userId: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    'DELETE FROM api_key k USING project p WHERE p.id = k.project_id AND p.organization_id = $1 AND k.created_by = $2 RETURNING k.name',
    [organizationId, userId],
  );
  return rows.map((r) => r.name);
}

/**
 * Revokes a key of the project: its name, or why not ('unknown' id, or the 'last' key of a project whose
 * organization has no members yet, which would leave nobody a way in).
 */
export async function revokeApiKey(
  client: pg.ClientBase,
  projectId: string,
  id: number,
): Promise<{ revoked: string } | 'unknown' | 'last'> {
  // Locked, so that two revocations at once cannot take the last two keys.
  const { rows } = await client.query<{ id: number; name: string }>(
    'SELECT id::int AS id, name FROM api_key WHERE project_id = $1 FOR UPDATE',
    [projectId],
  );
  const key = rows.find((k) => k.id === id);
  if (!key) return 'unknown';
  if (rows.length === 1) {
    const { rowCount } = await client.query(
      'SELECT 1 FROM membership m JOIN project p ON p.organization_id = m.organization_id WHERE p.id = $1 LIMIT 1',
      [projectId],
    );
    if (!rowCount) return 'last';
  }
  await client.query('DELETE FROM api_key WHERE id = $1', [id]);
  return { revoked: key.name };
}
