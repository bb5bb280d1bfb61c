import type pg from 'pg';

/**
 * Ends what went silent: a participant not heard from for `idleTimeoutS` has left (at its last sample),
 * and a call whose participants have all left has ended, last seen when its last participant was (ingest
 * moves a call's last-seen time in steps). Idempotent, so every node may run it.
 */
export async function sweep(pool: pg.Pool, idleTimeoutS: number): Promise<{ projectId: string; callId: string }[]> {
  const { rows } = await pool.query<{ project_id: string; external_id: string }>(
    // Every part of one statement sees the same snapshot: the outer UPDATE judges "still in" by the
    // same rule the CTE applies, not by the left_at the CTE is writing.
    `WITH gone AS (
       UPDATE participant SET left_at = last_seen_at
       WHERE left_at IS NULL AND last_seen_at < now() - make_interval(secs => $1)
       RETURNING call_id)
     UPDATE call c SET (ended_at, last_seen_at) =
       (SELECT max(coalesce(p.left_at, p.last_seen_at)), GREATEST(c.last_seen_at, max(p.last_seen_at)) FROM participant p WHERE p.call_id = c.id)
     WHERE c.ended_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM participant p WHERE p.call_id = c.id AND p.left_at IS NULL
                       AND p.last_seen_at >= now() - make_interval(secs => $1))
     RETURNING c.project_id, c.external_id`,
    [idleTimeoutS],
  );
  return rows.map((r) => ({ projectId: r.project_id, callId: r.external_id }));
}

/**
 * Runs `task` every `intervalS` (and at once if `atStart`), never two at once; returns the function
 * that stops it: it aborts the signal given to the task and resolves when a run in progress has ended,
 * so the database can close after it.
 */
export function repeat(
  intervalS: number,
  task: (signal: AbortSignal) => Promise<void>,
  onError: (err: unknown) => void,
  atStart = false,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= task(stopping.signal)
      .catch(onError)
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, intervalS * 1000);
  if (atStart) run();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
