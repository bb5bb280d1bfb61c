import { setTimeout as sleep } from 'node:timers/promises';
import { CONNECTION_FIELDS, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { inTransaction, withClient } from '../db/client.js';
import type { Database } from '../db/database.js';
import { COMPACT_AFTER_MS, parsePartitionName, Partitions } from './partitions.js';
import { BLOCK_SPAN, everyMinute, MINUTES } from './points.js';
import type { Priority } from '../db/priority.js';

interface Kind {
  table: 'stream' | 'connection';
  id: string;
  specs: readonly FieldSpec[];
}
const KINDS: Record<Kind['table'], Kind> = {
  stream: { table: 'stream', id: 'stream_id', specs: STREAM_FIELDS },
  connection: { table: 'connection', id: 'connection_id', specs: CONNECTION_FIELDS },
};

export interface CompactOptions {
  /** Partitions that ended more than COMPACT_AFTER_MS before this (epoch ms) are due. */
  now?: number;
  /**
   * The share of one core a pass may keep busy: after a chunk that took t, it waits t × (1 − share) / share.
   * 1 (the default) pauses never, for a pass that should be over as soon as it can.
   */
  share?: number;
  /** Streams (connections) compacted per chunk. */
  chunkIds?: number;
  /** Ends a pass between two chunks; the next pass goes on after the last chunk done. */
  signal?: AbortSignal;
}

/**
 * How a server's storage job paces compaction: chunks of 100 streams (60,000 rows at 1 Hz, about
 * 0.15 s of work on an idle database), a pause after each, so ingest never waits long for a core.
 * Its chunks run on the database's background connection; where that runs at the lowest CPU priority,
 * ingest takes the cores first and compaction may use half of one, else a third. On 2 cores at 80 %
 * load, a full slice then compacted in 3.5–4 minutes instead of 5.5, so compaction keeps up with more
 * load; ack p99 in those minutes was about as far over 250 ms as before. Those runs lowered the process's
 * nice but not its session's, so it was not yet the lowest against the server (docs/sizing.md).
 */
export const PACED: Pick<CompactOptions, 'chunkIds'> = { chunkIds: 100 };
export const pacedShare = (priority: Priority | null): number => (priority?.lowest ? 1 / 2 : 1 / 3);

/** One partition being compacted: its name, what it holds, and the time range its blocks start in. */
interface Leaf {
  name: string;
  kind: Kind;
  start: number;
  end: number;
}

/**
 * Which of a leaf's rows a statement takes: ids from `first` up to `next` (null: to the end), or all.
 * Ids come from the database's own bigint columns, so they are written into the SQL as they are: the
 * planner sees constant bounds on the primary key.
 */
interface Ids {
  first: number;
  next: number | null;
}
const inIds = (id: string, ids: Ids | null) =>
  ids ? `${everyMinute('r')} AND r.${id} >= ${ids.first}${ids.next === null ? '' : ` AND r.${id} < ${ids.next}`}` : 'true';

/**
 * One block per id and 10 minutes (UTC), arrays in time order, from the leaf's rows with `ids`. When
 * `checked`, rows already in a block (a batch resent after its slice was compacted, a late batch) are
 * left out, so nothing is stored twice. A block starts within the aligned 10 minutes of its samples, so
 * the blocks that may hold a partition's rows start within its own time range: bounded by constants,
 * the planner reads those alone, not every block of the day. A chunk of a slice that had no blocks when
 * its compaction began cannot have any, and skips the check.
 */
function compactSql({ name, kind, start, end }: Leaf, ids: Ids | null, checked: boolean, present: ReadonlySet<string>): string {
  const { table, id, specs } = kind;
  const columns = specs.map((s) => s.column);
  // A slice detached before a field was appended has no column for it: its blocks have none either (as
  // blocks made before the field was).
  const aggregated = (c: string) => (present.has(c) ? `array_agg(${c} ORDER BY ts)` : 'NULL');
  const stored = `EXISTS (
    SELECT 1 FROM ${table}_block b
    WHERE b.t0 >= '${new Date(start).toISOString()}' AND b.t0 < '${new Date(end).toISOString()}'
      AND b.${id} = r.${id} AND b.t0 <= r.ts AND b.t0 > r.ts - interval '${BLOCK_SPAN}'
      AND (extract(epoch FROM r.ts - b.t0) * 1000)::int = ANY (b.offset_ms))`;
  return `INSERT INTO ${table}_block (${id}, t0, n, offset_ms, seq, ${columns.join(', ')})
    SELECT ${id}, min(first), count(*),
      array_agg((extract(epoch FROM ts - first) * 1000)::int ORDER BY ts), array_agg(seq ORDER BY ts),
      ${columns.map(aggregated).join(', ')}
    FROM (
      SELECT r.*, date_bin('${BLOCK_SPAN}', r.ts, 'epoch') AS span, min(r.ts) OVER (PARTITION BY r.${id}, date_bin('${BLOCK_SPAN}', r.ts, 'epoch')) AS first
      FROM ${name} r
      WHERE ${inIds(id, ids)}${checked ? ` AND NOT ${stored}` : ''}
    ) x
    GROUP BY ${id}, span`;
}

/**
 * Compacts every sample partition that ended more than COMPACT_AFTER_MS before `now`: its rows become
 * blocks, then a slice is dropped (a whole day, from before slices, is left empty for retention). In
 * steps, so that no reader or writer of the sample tables waits on it for long, and paced (`share`),
 * so that ingest keeps the cores it needs:
 * 1. rows to blocks a chunk of ids at a time, each chunk a transaction, the blocks hidden from reads
 *    while the slice's rows still hold the same samples (`compaction` names the slice), and rows that
 *    arrive meanwhile noted by a trigger;
 * 2. the chunks that received rows since compacted again (only the rows no block holds), the slice
 *    emptied, and its blocks shown, in one transaction;
 * 3. the slice detached CONCURRENTLY: a late write now finds no partition and makes the slice again;
 * 4. rows that landed between 2 and 3 to blocks and the detached slice dropped, in one transaction.
 * A pass interrupted anywhere is finished by the next (a detached slice is found by its name).
 * Step 1, the bulk of the work, runs on the database's background connection (perhaps at the lowest CPU
 * priority): its chunks hold no lock that ingest or reads wait on. The other steps do, and run at
 * normal priority, so that a waiting writer never waits on a process that gets no CPU.
 * One node at a time runs a pass; a node that finds one running skips it. Returns the partitions
 * compacted and how many rows became blocks.
 */
export function compactSamples(
  db: Pick<Database, 'pool' | 'background'>,
  options: CompactOptions = {},
): Promise<{ partition: string; rows: number }[]> {
  return withClient(db.pool, async (client) => {
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(7431003) AS got');
    if (!rows[0]!.got) return [];
    try {
      return await compactDue(db, options);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7431003)').catch(() => {});
    }
  });
}

async function compactDue(
  { pool, background }: Pick<Database, 'pool' | 'background'>,
  options: CompactOptions,
): Promise<{ partition: string; rows: number }[]> {
  const now = options.now ?? Date.now();
  // A partition dropped by hand mid-compaction would hide its chunks' blocks for good.
  await pool.query(`DELETE FROM compaction c WHERE NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = c.partition AND relkind = 'r')`);
  const leaves = await sampleLeaves(pool);
  const done: { partition: string; rows: number }[] = [];
  for (const { name, attached, pending, begun } of leaves) {
    const partition = parsePartitionName(name);
    if (!partition || now - partition.end <= COMPACT_AFTER_MS) continue;
    // A whole day from before slices is compacted once it holds rows, and left for retention.
    if (!partition.slice && !begun && !(await holdsRows(pool, name))) continue;
    const leaf: Leaf = { name, kind: KINDS[partition.table], start: partition.start, end: partition.end };
    await Partitions.of(pool).ensureDays([partition.start]);
    const rows = partition.slice
      ? await compactSlice(pool, background.pool, leaf, { attached, pending, begun }, options)
      : await compactAttached(pool, background.pool, leaf, begun, options);
    if (rows === null) break;
    done.push({ partition: name, rows });
  }
  return done;
}

interface SampleLeaf {
  name: string;
  attached: boolean;
  /** Detached CONCURRENTLY by a pass that stopped before finalizing it. */
  pending: boolean;
  /** Compaction began on it (its chunks may be blocks already). */
  begun: boolean;
}

/** The sample tables' partitions, attached or left detached by a pass, from the catalog. */
async function sampleLeaves(pool: pg.Pool): Promise<SampleLeaf[]> {
  const { rows } = await pool.query<SampleLeaf>(
    `SELECT c.relname AS name, c.relispartition AS attached, coalesce(i.inhdetachpending, false) AS pending,
       EXISTS (SELECT 1 FROM compaction WHERE partition = c.relname) AS begun
     FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
     WHERE c.relkind = 'r' AND c.relname ~ '^(stream|connection)_sample_(s\\d{12}|p\\d{8}(_t\\d+)?)$'
     ORDER BY 1`,
  );
  return rows;
}

export interface Backlog {
  /** 10-minute slices due for compaction whose samples are still rows. */
  slices: number;
  /** How long the oldest of them has been due, in seconds (0 when none is). */
  overdueS: number;
}

/**
 * What compaction has yet to do at `now`. A slice is due COMPACT_AFTER_MS after it ends, and a pass runs
 * every 5 minutes and may take most of 10 beside ingest, so up to two due slices are normal; more,
 * and a growing overdue time, say compaction gets less CPU than the load needs. The slices wait as rows,
 * about ten times the bytes of blocks.
 */
export async function compactionBacklog(pool: pg.Pool, now = Date.now()): Promise<Backlog> {
  const due = new Set<number>();
  for (const { name } of await sampleLeaves(pool)) {
    const partition = parsePartitionName(name);
    if (partition?.slice && now - partition.end > COMPACT_AFTER_MS) due.add(partition.end);
  }
  const oldest = Math.min(...due);
  return { slices: due.size, overdueS: due.size ? Math.round((now - oldest - COMPACT_AFTER_MS) / 1000) : 0 };
}

async function compactSlice(
  pool: pg.Pool,
  chunks: pg.Pool,
  leaf: Leaf,
  state: { attached: boolean; pending: boolean; begun: boolean },
  options: CompactOptions,
): Promise<number | null> {
  let rows = 0;
  const root = `${leaf.kind.table}_sample`;
  if (state.pending) await pool.query(`ALTER TABLE ${root} DETACH PARTITION ${leaf.name} FINALIZE`);
  else if (state.attached) {
    const compacted = await compactAttached(pool, chunks, leaf, state.begun, options);
    if (compacted === null) return null;
    rows += compacted;
    await pool.query(`ALTER TABLE ${root} DETACH PARTITION ${leaf.name} CONCURRENTLY`);
  }
  return rows + (await lockedCompact(pool, leaf, 'DROP TABLE'));
}

const holdsRows = async (pool: pg.Pool, name: string) => (await pool.query(`SELECT 1 FROM ${name} LIMIT 1`)).rows.length > 0;

/**
 * Steps 1 and 2 for a partition still attached; null if stopped by the signal. A slice that already has
 * blocks was made again for a few late rows after its first compaction: those are compacted at once,
 * checked against the blocks (which cannot be hidden: they are the samples' only copy).
 */
async function compactAttached(
  pool: pg.Pool,
  chunks: pg.Pool,
  leaf: Leaf,
  begun: boolean,
  options: CompactOptions,
): Promise<number | null> {
  if (!begun) {
    const { rows: blocks } = await pool.query(
      `SELECT 1 FROM ${leaf.kind.table}_block WHERE t0 >= to_timestamp($1 / 1000.0) AND t0 < to_timestamp($2 / 1000.0) LIMIT 1`,
      [leaf.start, leaf.end],
    );
    if (blocks.length > 0) return lockedCompact(pool, leaf, 'TRUNCATE');
    await beginCompaction(pool, leaf);
  }
  const { rows: last } = await pool.query<{ next: number | null }>(
    'SELECT next_id AS next FROM compaction_chunk WHERE partition = $1 ORDER BY first_id DESC LIMIT 1',
    [leaf.name],
  );
  for (let first: number | null = last.length === 0 ? 0 : last[0]!.next; first !== null;) {
    if (options.signal?.aborted) return null;
    const began = performance.now();
    const chunk = { first, next: await chunkEnd(chunks, leaf, first, options.chunkIds ?? 500) };
    await compactChunk(chunks, leaf, chunk);
    first = chunk.next;
    await pause(performance.now() - began, options);
  }
  if (options.signal?.aborted) return null;
  return finishCompaction(pool, leaf);
}

/**
 * The id `count` distinct ids after `first` in the leaf (null if there are not that many), by as many
 * steps of one index lookup per minute (rows are keyed by minute first): the least id above the last.
 */
async function chunkEnd(pool: pg.Pool, { name, kind: { id } }: Leaf, first: number, count: number): Promise<number | null> {
  const after = (bound: string) =>
    `(SELECT min(f.id) FROM unnest(${MINUTES}) m,
       LATERAL (SELECT ${id} AS id FROM ${name} r WHERE r.minute = m AND r.${id} ${bound} ORDER BY r.${id} LIMIT 1) f)`;
  const { rows } = await pool.query<{ next: number | null }>(
    `WITH RECURSIVE ids(id, k) AS (
       SELECT ${after('>= $1')}, 1
       UNION ALL
       SELECT ${after('> ids.id')}, k + 1 FROM ids WHERE ids.id IS NOT NULL AND k <= $2)
     SELECT (SELECT id FROM ids WHERE k = $2 + 1) AS next`,
    [first, count],
  );
  return rows[0]!.next;
}

/** Step 1 for one chunk: its blocks written and the chunk recorded, in one transaction. */
function compactChunk(pool: pg.Pool, leaf: Leaf, ids: Ids): Promise<void> {
  return inTransaction(pool, async (client) => {
    const rows = await compactIn(client, leaf, ids, false);
    await client.query('INSERT INTO compaction_chunk (partition, first_id, next_id, rows) VALUES ($1, $2, $3, $4)', [
      leaf.name,
      ids.first,
      ids.next,
      rows,
    ]);
  });
}

/**
 * Before step 1: the slice is named in `compaction` (its blocks are hidden from reads from now on), and
 * every row that reaches it from now on is noted in `compaction_late` by a trigger, in one transaction.
 * Creating the trigger waits for writes into the slice under way, so the chunks see every row not noted.
 */
function beginCompaction(pool: pg.Pool, leaf: Leaf): Promise<void> {
  return inTransaction(pool, async (client) => {
    await client.query(
      'INSERT INTO compaction (partition, kind, from_ts, to_ts) VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($4 / 1000.0))',
      [leaf.name, leaf.kind.table, leaf.start, leaf.end],
    );
    await client.query(
      `CREATE TRIGGER compaction_late AFTER INSERT ON ${leaf.name} FOR EACH ROW EXECUTE FUNCTION compaction_note_late('${leaf.kind.id}')`,
    );
  });
}

/**
 * Step 2. The chunks holding a stream (connection) noted late are compacted again, their rows not in a
 * block yet only; then the slice is emptied, its trigger dropped, and its blocks shown.
 */
function finishCompaction(pool: pg.Pool, leaf: Leaf): Promise<number> {
  return inTransaction(pool, async (client) => {
    // Writers into this partition wait until its rows are blocks, so none is emptied away unseen.
    await client.query(`LOCK TABLE ${leaf.name} IN EXCLUSIVE MODE`);
    const { rows: chunks } = await client.query<{ first: number; rows: number }>(
      'SELECT first_id AS first, rows FROM compaction_chunk WHERE partition = $1 ORDER BY first_id',
      [leaf.name],
    );
    const { rows: noted } = await client.query<{ k: number }>(
      'SELECT DISTINCT width_bucket(id, $2::bigint[]) AS k FROM compaction_late WHERE partition = $1 ORDER BY 1',
      [leaf.name, chunks.map((c) => c.first)],
    );
    let late = 0;
    for (const { k } of noted) late += await compactIn(client, leaf, { first: chunks[k - 1]!.first, next: chunks[k]?.first ?? null }, true);
    await client.query(`DROP TRIGGER compaction_late ON ${leaf.name}`);
    await client.query(`TRUNCATE ${leaf.name}`);
    await client.query('DELETE FROM compaction WHERE partition = $1', [leaf.name]);
    const compacted = chunks.reduce((sum, c) => sum + c.rows, 0);
    return compacted + late;
  });
}

/** Rows with `ids` to blocks (see compactSql); returns how many. */
async function compactIn(client: pg.PoolClient, leaf: Leaf, ids: Ids | null, checked: boolean): Promise<number> {
  const columns = await client.query<{ name: string }>(
    'SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped',
    [leaf.name],
  );
  const present = new Set(columns.rows.map((c) => c.name));
  const { rows } = await client.query<{ n: number }>(
    `WITH blocks AS (${compactSql(leaf, ids, checked, present)} RETURNING n) SELECT coalesce(sum(n), 0)::int AS n FROM blocks`,
  );
  return rows[0]!.n;
}

/** Every row not in a block yet to blocks, then the partition emptied or dropped (`then`), in one transaction. */
function lockedCompact(pool: pg.Pool, leaf: Leaf, then: 'TRUNCATE' | 'DROP TABLE'): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query(`LOCK TABLE ${leaf.name} IN EXCLUSIVE MODE`);
    const rows = await compactIn(client, leaf, null, true);
    await client.query(`${then} ${leaf.name}`);
    return rows;
  });
}

/** Waits so that work of `busyMs` took no more than `share` of the time; cut short by the signal. */
async function pause(busyMs: number, { share = 1, signal }: CompactOptions): Promise<void> {
  if (share >= 1) return;
  await sleep((busyMs * (1 - share)) / share, undefined, { signal }).catch(() => {});
}
