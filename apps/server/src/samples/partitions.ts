import type pg from 'pg';
import { inTransaction } from '../db/client.js';
import { BLOCK_SPAN_MS } from './points.js';
import { PARTITION_TIERS, tierRange } from './retention-tiers.js';

const DAY_MS = 86_400_000;
/**
 * Sample rows live in slices of one block span: a slice compacts into whole blocks, then is dropped,
 * so rows (135 bytes a sample) are only ever the last half hour or so, and blocks (13–16) the rest.
 */
export const SLICE_MS = BLOCK_SPAN_MS;
/** A slice is compacted this long after it ended: batches resent after a reconnect arrive late. */
export const COMPACT_AFTER_MS = 600_000;

/** Samples before this time (epoch ms) may have been compacted into blocks; later ones cannot be. */
export function compactionHorizon(now: number): number {
  return Math.floor((now - COMPACT_AFTER_MS) / SLICE_MS) * SLICE_MS;
}

const SAMPLE_TABLES = ['stream_sample', 'connection_sample'] as const;
const DAY_TABLES = ['stream_rollup', 'connection_rollup', 'stream_block', 'connection_block'] as const;

/**
 * A slice is only ever inserted into, then compacted and dropped: vacuuming it for its inserts
 * (PostgreSQL does, to mark pages all-visible) is work nobody reads. Under a soak at 38,000
 * samples/s it wrote 3,000 pages/s and read 1,900, while ingest waited on the same disk.
 */
const NO_INSERT_VACUUM = 'WITH (autovacuum_vacuum_insert_threshold = -1)';

const DAY_NAME = /^(stream|connection)_(sample|rollup|block)_p(\d{4})(\d{2})(\d{2})(?:_t(\d+))?$/;
const SLICE_NAME = /^(stream|connection)_sample_s(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** What a partition's name (as `Partitions` makes them) says: its table, its time range, its retention tier. */
export interface PartitionName {
  table: 'stream' | 'connection';
  kind: 'sample' | 'rollup' | 'block';
  /** Epoch ms: a UTC day, or a slice of samples. */
  start: number;
  end: number;
  /** Whether it is a slice of samples (compacted, then dropped) rather than a day. */
  slice: boolean;
  /** null for a slice, or a whole day (split into tiers, or made before tiers existed). */
  tier: number | null;
}

export function parsePartitionName(name: string): PartitionName | null {
  const s = SLICE_NAME.exec(name);
  if (s) {
    const start = Date.UTC(Number(s[2]), Number(s[3]) - 1, Number(s[4]), Number(s[5]), Number(s[6]));
    return { table: s[1] as PartitionName['table'], kind: 'sample', start, end: start + SLICE_MS, slice: true, tier: null };
  }
  const d = DAY_NAME.exec(name);
  if (!d) return null;
  const start = Date.UTC(Number(d[3]), Number(d[4]) - 1, Number(d[5]));
  return {
    table: d[1] as PartitionName['table'],
    kind: d[2] as PartitionName['kind'],
    start,
    end: start + DAY_MS,
    slice: false,
    tier: d[6] === undefined ? null : Number(d[6]),
  };
}

/** `stream_sample_s202611221410`: the slice of `table` that starts at `start`. */
export function sliceName(table: string, start: number): string {
  return `${table}_s${new Date(start).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;
}

/**
 * The partitions, created on demand: a write at a time that has none yet creates them first.
 * Samples go to slices of SLICE_MS; rollups and blocks to UTC days, each split by id range into one
 * sub-partition per retention tier. Known partitions are remembered so the hot path costs nothing.
 * A slice before the compaction horizon is trusted for LATE_TRUST_MS only: any node may compact and
 * drop it (a write that then finds no slice forgets it, makes it again and is retried: see the ingest
 * session), while SDKs that come back after an outage resend many late batches, which should not
 * each check the catalog.
 */
export class Partitions {
  private static readonly byPool = new WeakMap<pg.Pool, Partitions>();

  /** The partitions of a database (its pool): one per database, so that what this node knows of them is shared. */
  static of(pool: pg.Pool): Partitions {
    let p = Partitions.byPool.get(pool);
    if (!p) Partitions.byPool.set(pool, (p = new Partitions(pool)));
    return p;
  }

  /** Slice start → when this node last made sure the slice exists. */
  private readonly knownSlices = new Map<number, number>();
  private readonly knownDays = new Set<number>();

  constructor(private readonly pool: pg.Pool) {}

  /** Makes sure every slice and day touched by `timestamps` (epoch ms) has its partitions. */
  async ensureFor(timestamps: Iterable<number>): Promise<void> {
    const now = Date.now();
    const horizon = compactionHorizon(now);
    const slices = new Set<number>();
    for (const ts of timestamps) {
      const slice = Math.floor(ts / SLICE_MS) * SLICE_MS;
      const checked = this.knownSlices.get(slice);
      if (checked === undefined || (slice < horizon && now - checked > LATE_TRUST_MS)) slices.add(slice);
    }
    if (slices.size === 0) return;
    await this.ensureDays(slices);
    for (const slice of slices) await this.createSlice(slice);
    for (const [slice, checked] of this.knownSlices) if (slice < horizon && now - checked > LATE_TRUST_MS) this.knownSlices.delete(slice);
  }

  /** Forgets the slices touched by `timestamps`: the next ensureFor checks them again. */
  forget(timestamps: Iterable<number>): void {
    for (const ts of timestamps) this.knownSlices.delete(Math.floor(ts / SLICE_MS) * SLICE_MS);
  }

  /**
   * Makes sure every day touched by `timestamps` has its rollup and block partitions. A day older than
   * live ingest takes is an imported recording's, whose partitions any node's retention may have dropped
   * since this node made them (when an imported call expired): it is always looked at again.
   */
  async ensureDays(timestamps: Iterable<number>): Promise<void> {
    const days = new Set<number>();
    for (const ts of timestamps) days.add(Math.floor(ts / DAY_MS) * DAY_MS);
    const old = Date.now() - OLD_DAY_MS;
    for (const day of days) {
      if (this.knownDays.has(day) && (day >= old || (await this.dayExists(day)))) continue;
      await this.createDay(day);
    }
  }

  /**
   * Whether an old day's tables still exist (retention may have dropped them since): asked of the
   * catalog without a lock, since CREATE … PARTITION OF locks its parent whole even when the table
   * exists, and a write group inserting beside it then deadlocked (an import of a past day, at startup).
   */
  private async dayExists(day: number): Promise<boolean> {
    const suffix = new Date(day).toISOString().slice(0, 10).replaceAll('-', '');
    const { rows } = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_class WHERE relname = ANY ($1)', [
      DAY_TABLES.map((table) => `${table}_p${suffix}`),
    ]);
    return rows[0]!.n === DAY_TABLES.length;
  }

  /**
   * Made apart, then attached: attaching locks the parent against other schema changes only, where
   * CREATE TABLE ... PARTITION OF would stop every insert and read of the table while it waits.
   */
  private async createSlice(start: number): Promise<void> {
    const from = new Date(start).toISOString();
    const to = new Date(start + SLICE_MS).toISOString();
    await this.serialized(async (client) => {
      for (const table of SAMPLE_TABLES) {
        const name = sliceName(table, start);
        const { rows } = await client.query<{ attached: boolean }>('SELECT relispartition AS attached FROM pg_class WHERE relname = $1', [
          name,
        ]);
        if (rows[0]?.attached) continue;
        await client.query('SAVEPOINT slice');
        try {
          await client.query(`CREATE TABLE ${name} (LIKE ${table} INCLUDING ALL) ${NO_INSERT_VACUUM}`);
          await client.query(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${from}') TO ('${to}')`);
        } catch (err) {
          // A database from before slices has whole days of samples, one of which already takes these rows.
          if ((err as { code?: string }).code !== OVERLAP) throw err;
          await client.query('ROLLBACK TO SAVEPOINT slice');
        }
      }
    });
    this.knownSlices.set(start, Date.now());
  }

  private async createDay(day: number): Promise<void> {
    const from = new Date(day).toISOString();
    const to = new Date(day + DAY_MS).toISOString();
    const suffix = from.slice(0, 10).replaceAll('-', '');
    await this.serialized(async (client) => {
      for (const table of DAY_TABLES) {
        const name = `${table}_p${suffix}`;
        const id = table.startsWith('stream') ? 'stream_id' : 'connection_id';
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}') PARTITION BY RANGE (${id})`,
        );
        // A day made before retention tiers existed is one plain table; it keeps every tier's rows.
        const { rows } = await client.query<{ relkind: string }>('SELECT relkind FROM pg_class WHERE relname = $1', [name]);
        if (rows[0]?.relkind !== 'p') continue;
        for (let tier = 0; tier < PARTITION_TIERS; tier++) {
          const { from: lo, to: hi } = tierRange(tier);
          await client.query(`CREATE TABLE IF NOT EXISTS ${name}_t${tier} PARTITION OF ${name} FOR VALUES FROM (${lo}) TO (${hi})`);
        }
      }
    });
    this.knownDays.add(day);
  }

  /** One transaction, one creator at a time across server nodes: CREATE ... IF NOT EXISTS alone can still race. */
  private serialized(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(7431002)');
      await work(client);
    });
  }
}

const OVERLAP = '42P17';
/** Live ingest takes samples up to 7 days old (ingest/time-window.ts); a day before that is an import's. */
const OLD_DAY_MS = 8 * DAY_MS;
const LATE_TRUST_MS = 60_000;
