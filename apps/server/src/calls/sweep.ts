import type pg from 'pg';

// SQL through `pg`: one statement ends every idle participant and call of every project, in one snapshot.

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
