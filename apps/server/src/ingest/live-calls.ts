import type pg from 'pg';

// SQL through `pg`: on ingest's path, counted per batch.

/** A project's count of live calls is asked of the database again after this long… */
const COUNT_FOR_MS = 1000;
/** …or, once the count here reaches the limit, after this long: a refusal is made on a count this fresh. */
const RECOUNT_FULL_MS = 100;

/**
 * Calls one project may have live at once: its own limit, else the deployment's (`PROJECT_LIVE_CALLS`;
 * null: none). A flood through the publishable key then cannot start thousands of calls, each judged,
 * alerted on and delivered to webhooks. Counted over every node from the database, and between counts
 * each handshake here is taken for a new call (an overestimate that asks again before refusing), so a
 * burst passes the limit by no more than what starts within a recount.
 */
export class LiveCallLimit {
  private readonly counts = new Map<string, { live: number; at: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly deploymentLimit: number | null,
  ) {}

  /** The limit when a handshake for `callId` would start one call more than the project may have live; else null. */
  async full(projectId: string, callId: string, ownLimit: number | null): Promise<number | null> {
    const limit = ownLimit ?? this.deploymentLimit;
    if (limit === null) return null;
    const now = Date.now();
    let count = this.counts.get(projectId);
    const age = count ? now - count.at : Infinity;
    if (age > COUNT_FOR_MS || (count!.live >= limit && age > RECOUNT_FULL_MS)) {
      const { rows } = await this.pool.query<{ live: number }>(
        'SELECT count(*)::int AS live FROM call WHERE project_id = $1 AND ended_at IS NULL',
        [projectId],
      );
      count = { live: rows[0]!.live, at: now };
      this.counts.set(projectId, count);
    }
    if (count!.live < limit) {
      count!.live++;
      return null;
    }
    // Full: a participant joining a call that is live already is let in.
    const { rowCount } = await this.pool.query('SELECT 1 FROM call WHERE project_id = $1 AND external_id = $2 AND ended_at IS NULL', [
      projectId,
      callId,
    ]);
    return rowCount ? null : limit;
  }
}
