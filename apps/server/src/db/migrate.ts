import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { withClient } from './client.js';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

/**
 * Applies the SQL migrations in Prisma's folder layout, each in its own transaction, recording what
 * ran. Works offline (Prisma's migrate needs a native engine that cannot be downloaded everywhere).
 * An advisory lock lets several server nodes start at once. A migration edited after it ran is an error.
 */
export function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  return withClient(pool, async (client) => {
    try {
      await client.query('SELECT pg_advisory_lock(7431001)');
      await client.query(`CREATE TABLE IF NOT EXISTS rtcscope_migration (
        name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Map(
        (await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM rtcscope_migration')).rows.map((r) => [
          r.name,
          r.checksum,
        ]),
      );
      const applied: string[] = [];
      for (const name of readdirSync(dir)
        .filter((n) => /^\d{14}_/.test(n))
        .sort()) {
        const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
        const checksum = createHash('sha256').update(sql).digest('hex');
        const previous = done.get(name);
        if (previous !== undefined) {
          if (previous !== checksum) throw new Error(`migration ${name} changed after it was applied; add a new migration instead`);
          continue;
        }
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO rtcscope_migration (name, checksum) VALUES ($1, $2)', [name, checksum]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${name} failed: ${(err as Error).message}`);
        }
        applied.push(name);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock(7431001)').catch(() => {});
    }
  });
}
