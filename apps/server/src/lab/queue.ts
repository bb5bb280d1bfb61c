import type { Job, RunProgress } from '@rtcscope/experiments';
import type pg from 'pg';

// SQL through `pg`: the runs table is the queue, claimed with `FOR UPDATE SKIP LOCKED`.

export interface RunRef {
  projectId: string;
  campaignId: number;
  runId: number;
}

/** A row changed for a run whose previous state the caller needs: who was running it. */
export interface Cancelled extends RunRef {
  agentId: number | null;
}

const ref = (r: { project_id: string; campaign_id: string; id: string }): RunRef => ({
  projectId: r.project_id,
  campaignId: Number(r.campaign_id),
  runId: Number(r.id),
});

/**
 * The durable queue of lab runs: the `lab_run` table itself. Agents claim the oldest queued run of
 * their project with SKIP LOCKED (several server nodes may hand out jobs at once); a running run is
 * kept alive by its agent's progress reports and fails when they stop.
 */
export class RunQueue {
  constructor(private readonly pool: pg.Pool) {}

  async claim(agentId: number, projectId: string, ingestKey: string): Promise<Job | null> {
    const { rows } = await this.pool.query<{
      id: string;
      campaign_id: string;
      repetition: number;
      variant: number;
      scenario: unknown;
      name: string;
    }>(
      `WITH next AS (
         SELECT id FROM lab_run WHERE project_id = $2 AND status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       UPDATE lab_run r SET status = 'running', agent_id = $1, started_at = now(), heartbeat_at = now(), progress = 0, message = 'starting'
       FROM next, lab_campaign c
       WHERE r.id = next.id AND c.id = r.campaign_id
       RETURNING r.id, r.campaign_id, r.repetition, r.variant, r.scenario, c.name`,
      [agentId, projectId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      runId: Number(row.id),
      campaignId: Number(row.campaign_id),
      repetition: row.repetition,
      label: `c${row.campaign_id}-v${row.variant}`,
      ingestKey,
      scenario: row.scenario,
    };
  }

  /** Records progress and keeps the run alive; null when the run is no longer this agent's to run. */
  async progress(agentId: number, p: RunProgress): Promise<RunRef | null> {
    const { rows } = await this.pool.query(
      // The agent is seen with every report: its "last seen" moves while it runs calls.
      `WITH seen AS (UPDATE lab_agent SET last_seen_at = now() WHERE id = $2)
       UPDATE lab_run SET progress = $3, message = $4, call_id = coalesce($5, call_id), heartbeat_at = now()
       WHERE id = $1 AND agent_id = $2 AND status = 'running'
       RETURNING project_id, campaign_id, id`,
      [p.runId, agentId, p.fraction, p.message, p.callId ?? null],
    );
    return rows[0] ? ref(rows[0]) : null;
  }

  /** The runs an agent says it is still busy with: alive again after a reconnect. */
  async stillRunning(agentId: number, runIds: readonly number[]): Promise<number[]> {
    if (!runIds.length) return [];
    const { rows } = await this.pool.query<{ id: string }>(
      `UPDATE lab_run SET heartbeat_at = now() WHERE id = ANY($1::bigint[]) AND agent_id = $2 AND status = 'running' RETURNING id`,
      [runIds, agentId],
    );
    return rows.map((r) => Number(r.id));
  }

  /**
   * Ends a run with what it measured, or with an error. Idempotent for the agent that ran it: a
   * report resent after a lost acknowledgement changes nothing and is acknowledged again.
   */
  async finish(
    agentId: number,
    runId: number,
    end: { result: unknown; outcome: unknown } | { error: string },
  ): Promise<RunRef | 'already' | null> {
    const done = 'error' in end ? null : end;
    const { rows } = await this.pool.query(
      `UPDATE lab_run SET status = $3, finished_at = now(), heartbeat_at = now(), progress = CASE WHEN $3 = 'done' THEN 1 ELSE progress END,
         message = $4, result = $5, outcome = $6, error = $7
       WHERE id = $1 AND agent_id = $2 AND status = 'running'
       RETURNING project_id, campaign_id, id`,
      [
        runId,
        agentId,
        done ? 'done' : 'failed',
        done ? 'finished' : 'failed',
        done?.result ?? null,
        done?.outcome ?? null,
        'error' in end ? end.error : null,
      ],
    );
    if (rows[0]) return ref(rows[0]);
    const { rowCount } = await this.pool.query(
      `SELECT 1 FROM lab_run WHERE id = $1 AND agent_id = $2 AND status IN ('done', 'failed', 'cancelled')`,
      [runId, agentId],
    );
    return rowCount ? 'already' : null;
  }

  /** Cancels queued and running runs of one run or a whole campaign of the project. */
  async cancel(projectId: string, target: { runId: number } | { campaignId: number }): Promise<Cancelled[]> {
    const byRun = 'runId' in target;
    const { rows } = await this.pool.query<{ project_id: string; campaign_id: string; id: string; agent_id: string | null }>(
      `WITH target AS (
         SELECT id, status AS was, agent_id FROM lab_run
         WHERE project_id = $1 AND ${byRun ? 'id' : 'campaign_id'} = $2 AND status IN ('queued', 'running') FOR UPDATE)
       UPDATE lab_run r SET status = 'cancelled', finished_at = now(), message = 'cancelled'
       FROM target WHERE r.id = target.id
       RETURNING r.project_id, r.campaign_id, r.id, CASE WHEN target.was = 'running' THEN target.agent_id END AS agent_id`,
      [projectId, byRun ? target.runId : target.campaignId],
    );
    return rows.map((r) => ({ ...ref(r), agentId: r.agent_id === null ? null : Number(r.agent_id) }));
  }

  /** Fails running runs whose agent has not reported for `graceS`: it died, lost its network or was stopped. */
  async failSilent(graceS: number): Promise<RunRef[]> {
    const { rows } = await this.pool.query(
      `UPDATE lab_run r SET status = 'failed', finished_at = now(),
         error = format('agent "%s" stopped reporting during the run (last heard %s UTC, more than %s s ago); its calls may be incomplete',
                        coalesce((SELECT name FROM lab_agent a WHERE a.id = r.agent_id), 'deleted agent'),
                        to_char(r.heartbeat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), $1::int)
       WHERE r.status = 'running' AND r.heartbeat_at < now() - make_interval(secs => $1::int)
       RETURNING r.project_id, r.campaign_id, r.id`,
      [graceS],
    );
    return rows.map(ref);
  }
}
