import type { Verdict } from '@rtcscope/metrics';
import type pg from 'pg';
import { inTransaction } from '../db/client.js';
import type { Database } from '../db/database.js';
import { bucketSql, type Histogram } from './histogram.js';
import { COLUMNS, METRICS, SEGMENTS, segmentScope } from './segments.js';

const DAY_MS = 86_400_000;

/** A day's rollup of one segment of one breakdown, as stored. */
export interface DayRow {
  day: Date;
  segment: string | null;
  calls: number;
  participants: number;
  minutes: number;
  setup_failures: number;
  metrics: Record<string, Histogram>;
  issues: Record<string, { calls: number; minutes: number }>;
  verdicts: Partial<Record<Verdict, number>>;
}

/**
 * Writes one day of a project again: for every built-in breakdown and every metadata key its
 * participants or calls carry, each segment's counts, metric histograms and issue counts (the same
 * segments and numbers as the raw insights query, segments.ts). In one transaction, so a reader sees the
 * day before or after, never half.
 */
export async function rollUpDay(pool: pg.Pool, projectId: string, day: Date): Promise<void> {
  const from = day.getTime();
  const to = from + DAY_MS;
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`insight_day ${projectId} ${from}`]);
    await client.query('DELETE FROM insight_day WHERE project_id = $1 AND day = $2::date', [projectId, day.toISOString().slice(0, 10)]);
    const { rows: keys } = await client.query<{ key: string }>(
      `SELECT DISTINCT k AS key FROM participant_summary s JOIN participant p ON p.id = s.participant_id JOIN call c ON c.id = s.call_id,
         LATERAL (SELECT jsonb_object_keys(p.metadata) UNION SELECT jsonb_object_keys(c.metadata)) m(k)
       WHERE s.project_id = $1 AND s.started_at >= to_timestamp($2::float8 / 1000.0) AND s.started_at < to_timestamp($3::float8 / 1000.0)
         AND k ~ '^[A-Za-z0-9_.-]{1,64}$'`,
      [projectId, from, to],
    );
    for (const breakdown of [...Object.keys(SEGMENTS), ...keys.map((k) => `metadata:${k.key}`)])
      await rollUpBreakdown(client, projectId, breakdown, from, to);
  });
}

async function rollUpBreakdown(client: pg.ClientBase, projectId: string, breakdown: string, from: number, to: number): Promise<void> {
  const { scope, params } = segmentScope(projectId, breakdown, from, to);
  const at = params.length;
  const values = METRICS.map((m) => `('${m}', ${COLUMNS[m]}::float8)`).join(', ');
  await client.query(
    `${scope}, buckets AS (
       SELECT segment, metric, ${bucketSql('v')} AS bucket, count(*) AS n, sum(v) AS total
       FROM x, LATERAL (VALUES ${values}) m(metric, v) WHERE v IS NOT NULL GROUP BY 1, 2, 3
     ), histograms AS (
       SELECT segment, jsonb_object_agg(metric, jsonb_build_object('n', n, 'sum', total, 'h', h)) AS metrics
       FROM (SELECT segment, metric, sum(n) AS n, sum(total) AS total, jsonb_object_agg(bucket, n) AS h FROM buckets GROUP BY 1, 2) y GROUP BY 1
     ), issue_counts AS (
       SELECT segment, jsonb_object_agg(t, jsonb_build_object('calls', calls, 'minutes', minutes)) AS issues
       FROM (SELECT segment, t, count(DISTINCT call_id) AS calls, sum(seconds) / 60 AS minutes FROM x, unnest(x.issues) t GROUP BY 1, 2) z GROUP BY 1
     ), verdict_counts AS (
       SELECT segment, jsonb_object_agg(verdict, calls) AS verdicts
       FROM (SELECT segment, verdict, count(DISTINCT call_id) AS calls FROM x WHERE verdict IS NOT NULL GROUP BY 1, 2) z GROUP BY 1
     ), base AS (
       SELECT segment, count(DISTINCT call_id)::int AS calls, count(*)::int AS participants, coalesce(sum(seconds) / 60, 0) AS minutes,
              count(*) FILTER (WHERE setup_failed)::int AS setup_failures
       FROM x GROUP BY 1
     )
     INSERT INTO insight_day (project_id, day, breakdown, segment, calls, participants, minutes, setup_failures, metrics, issues, verdicts)
     SELECT $1, (to_timestamp($2::float8 / 1000.0) AT TIME ZONE 'UTC')::date, $${at + 1}, b.segment, b.calls, b.participants, b.minutes, b.setup_failures,
            coalesce(h.metrics, '{}'), coalesce(i.issues, '{}'), coalesce(v.verdicts, '{}')
     FROM base b LEFT JOIN histograms h ON h.segment IS NOT DISTINCT FROM b.segment LEFT JOIN issue_counts i ON i.segment IS NOT DISTINCT FROM b.segment
       LEFT JOIN verdict_counts v ON v.segment IS NOT DISTINCT FROM b.segment`,
    [...params, breakdown],
  );
}

/**
 * A day is rolled up this long after its summaries first changed: the summary rounds of a busy day
 * (every 5 s while calls run) make one rollup, and long periods' insights are this much behind.
 */
export const ROLL_UP_AFTER_S = 20;

/**
 * Rolls up to `limit` days whose summaries changed ROLL_UP_AFTER_S ago or more, newest first; each node
 * may run it. Returns the days done.
 */
export async function rollUpDirtyDays(db: Database, limit: number): Promise<number> {
  const { rows } = await db.pool.query<{ project_id: string; day: string }>(
    `DELETE FROM insight_day_dirty d USING (
       SELECT project_id, day FROM insight_day_dirty WHERE since < now() - make_interval(secs => $2) ORDER BY day DESC LIMIT $1 FOR UPDATE SKIP LOCKED
     ) due WHERE d.project_id = due.project_id AND d.day = due.day
     RETURNING d.project_id, to_char(d.day, 'YYYY-MM-DD') AS day`,
    [limit, ROLL_UP_AFTER_S],
  );
  for (const r of rows) {
    try {
      await rollUpDay(db.pool, r.project_id, new Date(`${r.day}T00:00:00Z`));
    } catch (err) {
      // Not lost: the day is rolled up at a later round.
      await db.pool.query(
        "INSERT INTO insight_day_dirty (project_id, day, since) VALUES ($1, $2, now() - interval '1 hour') ON CONFLICT DO NOTHING",
        [r.project_id, r.day],
      );
      throw err;
    }
  }
  return rows.length;
}

/**
 * The stored days of a breakdown in [from, to) (whole UTC days). A day none of whose participants
 * carried a metadata key has no rollup for it: all its participants are that key's unknown segment,
 * read from the day's `none` rollup.
 */
export async function loadDays(db: Database, projectId: string, breakdown: string, from: number, to: number): Promise<DayRow[]> {
  const { rows } = await db.pool.query<DayRow>(
    `WITH period AS (
       SELECT * FROM insight_day
       WHERE project_id = $1 AND day >= (to_timestamp($3::float8 / 1000.0) AT TIME ZONE 'UTC')::date AND day < (to_timestamp($4::float8 / 1000.0) AT TIME ZONE 'UTC')::date
     )
     SELECT day::timestamp AT TIME ZONE 'UTC' AS day, segment, calls, participants, minutes, setup_failures, metrics, issues, verdicts FROM period WHERE breakdown = $2
     UNION ALL
     SELECT day::timestamp AT TIME ZONE 'UTC', NULL, calls, participants, minutes, setup_failures, metrics, issues, verdicts FROM period t
     WHERE $2 LIKE 'metadata:%' AND breakdown = 'none' AND NOT EXISTS (SELECT 1 FROM period m WHERE m.day = t.day AND m.breakdown = $2)`,
    [projectId, breakdown, from, to],
  );
  return rows;
}
