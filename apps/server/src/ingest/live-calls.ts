import type pg from 'pg';

// SQL through `pg`: once per handshake of a project with a live-call limit.

/**
 * How long a socket let in holds a place for a call it has not started (no batch or result yet): past
 * this its first message is counted again, so sockets that wait cannot hold the project's places.
 */
export const HOLD_MS = 30_000;

/** A place held for a socket's call until it is started (then the database counts it) or the socket goes. */
export interface Place {
  /** True once the place was given up unused (`HOLD_MS` passed): the call is counted again when it starts. */
  readonly lapsed: boolean;
  release(): void;
}

/**
 * Calls one project may have live at once: its own limit, else the deployment's (`PROJECT_LIVE_CALLS`;
 * null: none). A flood through the publishable key then cannot start thousands of calls, each judged,
 * alerted on and delivered to webhooks. A project's handshakes are admitted one at a time on a node,
 * each counting the calls the database holds live and the calls this node let in that have not started
 * yet, so a burst of handshakes cannot pass the limit here; behind several nodes, each counts the
 * others' started calls only.
 */
export class LiveCallLimit {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Per project, the calls let in here and not started yet, with the places held for each. */
  private readonly held = new Map<string, Map<string, number>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly deploymentLimit: number | null,
  ) {}

  /** A place for a socket of `callId`, or the limit when it would start one call more than the project may have live. */
  admit(projectId: string, callId: string, ownLimit: number | null): Promise<Place | { full: number }> {
    const limit = ownLimit ?? this.deploymentLimit;
    if (limit === null) return Promise.resolve(NO_PLACE);
    const turn = (this.queues.get(projectId) ?? Promise.resolve()).then(() => this.count(projectId, callId, limit));
    const settled = turn.catch(() => undefined);
    this.queues.set(projectId, settled);
    void settled.then(() => {
      if (this.queues.get(projectId) === settled) this.queues.delete(projectId);
    });
    return turn;
  }

  private async count(projectId: string, callId: string, limit: number): Promise<Place | { full: number }> {
    const held = this.held.get(projectId) ?? new Map<string, number>();
    if (!held.has(callId)) {
      const { rows } = await this.pool.query<{ live: number; joining: boolean | null }>(
        `SELECT count(*) FILTER (WHERE NOT (external_id = ANY($2)))::int AS live, bool_or(external_id = $3) AS joining
         FROM call WHERE project_id = $1 AND ended_at IS NULL`,
        [projectId, [...held.keys()], callId],
      );
      // A participant joining a call that is live already is let in.
      if (!rows[0]!.joining && rows[0]!.live + held.size >= limit) return { full: limit };
    }
    return this.hold(projectId, held, callId);
  }

  private hold(projectId: string, held: Map<string, number>, callId: string): Place {
    held.set(callId, (held.get(callId) ?? 0) + 1);
    this.held.set(projectId, held);
    let done = false;
    const place = {
      lapsed: false,
      release: () => {
        clearTimeout(timer);
        if (done) return;
        done = true;
        const left = (held.get(callId) ?? 1) - 1;
        if (left > 0) held.set(callId, left);
        else held.delete(callId);
        if (held.size === 0 && this.held.get(projectId) === held) this.held.delete(projectId);
      },
    };
    const timer = setTimeout(() => {
      place.lapsed = true;
      place.release();
    }, HOLD_MS);
    timer.unref();
    return place;
  }
}

const NO_PLACE: Place = { lapsed: false, release: () => {} };
