import { CONNECTION_FIELDS, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { inTransaction, withClient } from '../db/client.js';
import type { Database } from '../db/database.js';
import { COMPACT_AFTER_MS, parsePartitionName } from '../db/partitions.js';
import { BLOCK_SPAN } from '../db/points.js';

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
 * its slice was compacted) are left out, so nothing is stored twice. A block starts within the aligned
 * 10 minutes of its samples, so the blocks that may hold a partition's rows start within its own time
 * range (epoch ms `start` to `end`): bounded by constants, the planner reads those alone, not every
 * block of the day. (Reaching back one span more took in the previous slice's 48,000 blocks: one
 * slice of 23 M rows had not been compacted after 13 minutes.)
 */
function compactSql({ table, id, specs }: Kind, leaf: string, start: number, end: number): string {
  const from = new Date(start).toISOString();
  const to = new Date(end).toISOString();
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
        WHERE b.t0 >= '${from}' AND b.t0 < '${to}'
          AND b.${id} = r.${id} AND b.t0 <= r.ts AND b.t0 > r.ts - interval '${BLOCK_SPAN}' AND b.t0 + o * interval '1 millisecond' = r.ts)
    ) x
    GROUP BY ${id}, span`;
}

/**
 * Compacts every sample partition that ended more than COMPACT_AFTER_MS before `now`: its rows become
 * blocks, then a slice is dropped (a whole day, from before slices, is left empty for retention). In
 * three steps, so that no reader or writer of the sample tables waits on it for long:
 * 1. rows to blocks and the partition emptied, in one transaction: readers see rows, then blocks; a
 *    write racing it waits, then lands in the emptied partition;
 * 2. the slice detached CONCURRENTLY: a late write now finds no partition and makes the slice again;
 * 3. rows that landed between 1 and 2 to blocks and the detached slice dropped, in one transaction.
 * A pass interrupted between steps is finished by the next (a detached slice is found by its name).
 * One node at a time runs a pass; a node that finds one running skips it. Returns the partitions
 * compacted and how many rows became blocks.
 */
export function compactSamples(db: Pick<Database, 'pool' | 'partitions'>, now = Date.now()): Promise<{ partition: string; rows: number }[]> {
  return withClient(db.pool, async (client) => {
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(7431003) AS got');
    if (!rows[0]!.got) return [];
    try {
      return await compactDue(db, now);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7431003)').catch(() => {});
    }
  });
}

async function compactDue({ pool, partitions }: Pick<Database, 'pool' | 'partitions'>, now: number): Promise<{ partition: string; rows: number }[]> {
  const { rows: leaves } = await pool.query<{ name: string; attached: boolean; pending: boolean }>(
    `SELECT c.relname AS name, c.relispartition AS attached, coalesce(i.inhdetachpending, false) AS pending
     FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
     WHERE c.relkind = 'r' AND c.relname ~ '^(stream|connection)_sample_(s\\d{12}|p\\d{8}(_t\\d+)?)$'
     ORDER BY 1`,
  );
  const done: { partition: string; rows: number }[] = [];
  for (const { name, attached, pending } of leaves) {
    const partition = parsePartitionName(name);
    if (!partition || now - partition.end <= COMPACT_AFTER_MS) continue;
    const sql = compactSql(KINDS[partition.table], name, partition.start, partition.end);
    await partitions.ensureDays([partition.start]);
    if (!partition.slice) {
      const { rows: any } = await pool.query(`SELECT 1 FROM ${name} LIMIT 1`);
      if (any.length > 0) done.push({ partition: name, rows: await compactLeaf(pool, sql, name, 'TRUNCATE') });
      continue;
    }
    let rows = 0;
    const root = `${partition.table}_sample`;
    if (pending) await pool.query(`ALTER TABLE ${root} DETACH PARTITION ${name} FINALIZE`);
    else if (attached) {
      rows += await compactLeaf(pool, sql, name, 'TRUNCATE');
      await pool.query(`ALTER TABLE ${root} DETACH PARTITION ${name} CONCURRENTLY`);
    }
    rows += await compactLeaf(pool, sql, name, 'DROP TABLE');
    done.push({ partition: name, rows });
  }
  return done;
}

/** Rows to blocks (`compact`), then the partition emptied or dropped (`then`), in one transaction. */
function compactLeaf(pool: pg.Pool, compact: string, leaf: string, then: 'TRUNCATE' | 'DROP TABLE'): Promise<number> {
  return inTransaction(pool, async (client) => {
    // Writers into this partition wait until the rows are blocks, so none is emptied away unseen.
    await client.query(`LOCK TABLE ${leaf} IN EXCLUSIVE MODE`);
    const { rows } = await client.query<{ n: number }>(`WITH blocks AS (${compact} RETURNING n) SELECT coalesce(sum(n), 0)::int AS n FROM blocks`);
    await client.query(`${then} ${leaf}`);
    return rows[0]!.n;
  });
}
