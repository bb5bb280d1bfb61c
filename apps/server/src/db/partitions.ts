import type pg from 'pg';
import { RETENTION_TIERS, tierRange } from './retention-tiers.js';

const DAY_MS = 86_400_000;
const TABLES = ['stream_sample', 'connection_sample', 'stream_rollup', 'connection_rollup', 'stream_block', 'connection_block'] as const;

/**
 * A day of samples is only ever inserted into, then compacted into blocks and emptied: vacuuming it
 * for its inserts (PostgreSQL does, to mark pages all-visible) is work nobody reads. Under a soak
 * at 38,000 samples/s it wrote 3,000 pages/s and read 1,900, while ingest waited on the same disk.
 */
const INSERT_ONLY: ReadonlySet<string> = new Set(['stream_sample', 'connection_sample']);
const NO_INSERT_VACUUM = 'WITH (autovacuum_vacuum_insert_threshold = -1)';

const NAME = /^(stream|connection)_(sample|rollup|block)_p(\d{4})(\d{2})(\d{2})(?:_t(\d+))?$/;

/** What a partition's name (as `Partitions` makes them) says: its table, its UTC day, its retention tier. */
export interface PartitionName {
  table: 'stream' | 'connection';
  kind: 'sample' | 'rollup' | 'block';
  dayStart: number;
  /** null for a whole day (split into tiers, or made before tiers existed). */
  tier: number | null;
}

export function parsePartitionName(name: string): PartitionName | null {
  const m = NAME.exec(name);
  if (!m) return null;
  return {
    table: m[1] as PartitionName['table'],
    kind: m[2] as PartitionName['kind'],
    dayStart: Date.UTC(Number(m[3]), Number(m[4]) - 1, Number(m[5])),
    tier: m[6] === undefined ? null : Number(m[6]),
  };
}

/**
 * Daily (UTC) partitions of the sample, rollup and block tables, each split by id range into one
 * sub-partition per retention tier, created on demand: a write for a day that has no partition yet
 * creates it first. Known days are remembered so the hot path costs nothing.
 */
export class Partitions {
  private readonly known = new Set<number>();

  constructor(private readonly pool: pg.Pool) {}

  /** Makes sure every day touched by `timestamps` (epoch ms) has its partitions. */
  async ensureFor(timestamps: Iterable<number>): Promise<void> {
    const days = new Set<number>();
    for (const ts of timestamps) {
      const day = Math.floor(ts / DAY_MS);
      if (!this.known.has(day)) days.add(day);
    }
    for (const day of days) await this.create(day);
  }

  private async create(day: number): Promise<void> {
    const from = new Date(day * DAY_MS).toISOString();
    const to = new Date((day + 1) * DAY_MS).toISOString();
    const suffix = from.slice(0, 10).replaceAll('-', '');
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Serializes creators across server nodes: CREATE ... IF NOT EXISTS alone can still race.
      await client.query('SELECT pg_advisory_xact_lock(7431002)');
      for (const table of TABLES) {
        const day = `${table}_p${suffix}`;
        const id = table.startsWith('stream') ? 'stream_id' : 'connection_id';
        await client.query(`CREATE TABLE IF NOT EXISTS ${day} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}') PARTITION BY RANGE (${id})`);
        // A day made before retention tiers existed is one plain table; it keeps every tier's rows.
        const { rows } = await client.query<{ relkind: string }>('SELECT relkind FROM pg_class WHERE relname = $1', [day]);
        if (rows[0]?.relkind !== 'p') continue;
        for (const tier of RETENTION_TIERS.keys()) {
          const { from: lo, to: hi } = tierRange(tier);
          await client.query(`CREATE TABLE IF NOT EXISTS ${day}_t${tier} PARTITION OF ${day} FOR VALUES FROM (${lo}) TO (${hi}) ${INSERT_ONLY.has(table) ? NO_INSERT_VACUUM : ''}`);
        }
      }
      await client.query('COMMIT');
      this.known.add(day);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
}
