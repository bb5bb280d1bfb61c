import type pg from 'pg';
import { inTransaction } from '../db/client.js';
import { parsePartitionName } from './partitions.js';
import { IMPORTED_TIER, MAX_ROLLUP_RETENTION_DAYS, RETENTION_TIERS, ROLLUP_RETENTION_FACTOR } from './retention-tiers.js';

const DAY_MS = 86_400_000;

/** How long a table's rows of a tier are kept: samples (rows or blocks) the tier's days, rollups longer. */
function keepDays(kind: string, tier: number): number {
  const days = RETENTION_TIERS[tier] ?? RETENTION_TIERS[0];
  return kind === 'rollup' ? Math.min(days * ROLLUP_RETENTION_FACTOR, MAX_ROLLUP_RETENTION_DAYS) : days;
}

const longestKeepDays = (kind: string) => Math.max(...RETENTION_TIERS.map((_, tier) => keepDays(kind, tier)));

/** Drops a table if it holds no row, locked first so that a write under way is either in it or waits for its drop. */
async function dropIfEmpty(pool: pg.Pool, name: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    await client.query(`LOCK TABLE ${name} IN ACCESS EXCLUSIVE MODE`);
    if ((await client.query(`SELECT 1 FROM ${name} LIMIT 1`)).rowCount) return false;
    await client.query(`DROP TABLE ${name}`);
    return true;
  });
}

/**
 * Drops every day partition (of a tier, or a whole day made before tiers) whose last moment is
 * older than its retention: no row is deleted one by one. Slices of samples are not retention's: the
 * compaction turns them into blocks and drops them within half an hour. Returns the dropped tables'
 * names. Idempotent, so every node may run it.
 */
export async function dropExpired(pool: pg.Pool, now = Date.now()): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind AS kind FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class parent ON parent.oid = i.inhparent
     WHERE parent.relname ~ '^(stream|connection)_(sample|rollup|block)(_p\\d{8})?$'`,
  );
  const dropped: string[] = [];
  for (const { name, kind: relkind } of rows) {
    const partition = parsePartitionName(name);
    // A day split into tiers is dropped tier by tier; the empty day table goes when its last tier has.
    if (!partition || partition.slice || relkind === 'p') continue;
    if (partition.tier === IMPORTED_TIER) {
      // Imported calls' samples are dated when they were recorded, not kept by that date (their calls
      // expire: recordings/expiry.ts). Once every other tier of its day is gone, an empty one goes too.
      if (now - partition.end > longestKeepDays(partition.kind) * DAY_MS && (await dropIfEmpty(pool, name))) dropped.push(name);
      continue;
    }
    if (now - partition.end <= keepDays(partition.kind, partition.tier ?? 0) * DAY_MS) continue;
    await pool.query(`DROP TABLE IF EXISTS ${name}`);
    dropped.push(name);
  }
  const { rows: empty } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_partitioned_table pt JOIN pg_class c ON c.oid = pt.partrelid
     WHERE c.relname ~ '^(stream|connection)_(sample|rollup|block)_p\\d{8}$' AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid)`,
  );
  for (const { name } of empty) {
    await pool.query(`DROP TABLE IF EXISTS ${name}`);
    dropped.push(name);
  }
  return dropped;
}
