import type pg from 'pg';

const DAY_MS = 86_400_000;
const TABLES = ['stream_sample', 'connection_sample', 'stream_rollup', 'connection_rollup'] as const;

/**
 * Daily (UTC) partitions of the sample tables, created on demand: a write for a day that has no
 * partition yet creates it first. Known days are remembered so the hot path costs nothing.
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
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${table}_p${suffix} PARTITION OF ${table} FOR VALUES FROM ('${from}') TO ('${to}')`,
        );
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
