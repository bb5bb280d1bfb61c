import { CONNECTION_FIELDS, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { Partitions, parsePartitionName } from '../db/partitions.js';
import { BLOCK_SPAN } from '../db/points.js';

const DAY_MS = 86_400_000;
/** A day is compacted this long after it ended: batches resent after a reconnect arrive late. */
export const COMPACT_AFTER_MS = 3_600_000;
/** Samples before this time (epoch ms) may have been compacted into blocks; later ones cannot be. */
export function compactionHorizon(now: number): number {
  return Math.floor((now - COMPACT_AFTER_MS) / DAY_MS) * DAY_MS;
}

interface Kind {
  table: 'stream' | 'connection';
  id: string;
  specs: readonly FieldSpec[];
}
const KINDS: Record<Kind['table'], Kind> = {
  stream: { table: 'stream', id: 'stream_id', specs: STREAM_FIELDS },
  connection: { table: 'connection', id: 'connection_id', specs: CONNECTION_FIELDS },
};

/**
 * One block per id and 10 minutes (UTC), arrays in time order. Rows already in a block (a batch resent after
 * its day was compacted) are left out, so nothing is stored twice.
 */
function compactSql({ table, id, specs }: Kind, leaf: string): string {
  const columns = specs.map((s) => s.column);
  return `INSERT INTO ${table}_block (${id}, t0, n, offset_ms, seq, ${columns.join(', ')})
    SELECT ${id}, min(first), count(*),
      array_agg((extract(epoch FROM ts - first) * 1000)::int ORDER BY ts), array_agg(seq ORDER BY ts),
      ${columns.map((c) => `array_agg(${c} ORDER BY ts)`).join(', ')}
    FROM (
      SELECT r.*, date_bin('${BLOCK_SPAN}', r.ts, 'epoch') AS span, min(r.ts) OVER (PARTITION BY r.${id}, date_bin('${BLOCK_SPAN}', r.ts, 'epoch')) AS first
      FROM ${leaf} r
      WHERE NOT EXISTS (
        SELECT 1 FROM ${table}_block b, unnest(b.offset_ms) o
        WHERE b.${id} = r.${id} AND b.t0 <= r.ts AND b.t0 > r.ts - interval '${BLOCK_SPAN}' AND b.t0 + o * interval '1 millisecond' = r.ts)
    ) x
    GROUP BY ${id}, span`;
}

/**
 * Compacts every sample partition whose day ended more than COMPACT_AFTER_MS before `now` and still
 * has rows: its rows become blocks and the partition is emptied, in one transaction per partition (a
 * write racing it waits, then lands in the emptied partition and is compacted by a later pass).
 * Idempotent, so every node may run it. Returns the compacted partitions and how many rows became blocks.
 */
export async function compactSamples(pool: pg.Pool, now = Date.now()): Promise<{ partition: string; rows: number }[]> {
  const { rows: leaves } = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_partition_tree('stream_sample') t JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf
     UNION ALL
     SELECT c.relname FROM pg_partition_tree('connection_sample') t JOIN pg_class c ON c.oid = t.relid WHERE t.isleaf
     ORDER BY 1`,
  );
  const partitions = new Partitions(pool);
  const done: { partition: string; rows: number }[] = [];
  for (const { name } of leaves) {
    const partition = parsePartitionName(name);
    if (partition?.kind !== 'sample') continue;
    const { table, dayStart } = partition;
    if (now - (dayStart + DAY_MS) <= COMPACT_AFTER_MS) continue;
    const { rows: any } = await pool.query(`SELECT 1 FROM ${name} LIMIT 1`);
    if (any.length === 0) continue;
    await partitions.ensureFor([dayStart]);
    done.push({ partition: name, rows: await compactLeaf(pool, KINDS[table], name) });
  }
  return done;
}

async function compactLeaf(pool: pg.Pool, kind: Kind, leaf: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Writers into this partition wait until the rows are blocks, so none is emptied away unseen.
    await client.query(`LOCK TABLE ${leaf} IN EXCLUSIVE MODE`);
    const { rows } = await client.query<{ n: number }>(`WITH blocks AS (${compactSql(kind, leaf)} RETURNING n) SELECT coalesce(sum(n), 0)::int AS n FROM blocks`);
    await client.query(`TRUNCATE ${leaf}`);
    await client.query('COMMIT');
    return rows[0]!.n;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
