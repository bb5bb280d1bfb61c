import { INSIGHT_METRICS, type InsightMetric, type Insights, type InsightsQuery } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';

/** Each metric's column in `participant_summary`. */
const COLUMNS: Record<InsightMetric, string> = {
  score: 'score',
  rttMs: 'rtt_ms',
  lossPct: 'loss_pct',
  jitterMs: 'jitter_ms',
  sentKbps: 'sent_kbps',
  receivedKbps: 'received_kbps',
  fps: 'fps',
  height: 'height',
  freezes: 'freezes',
  setupMs: 'setup_ms',
};
const METRICS = Object.keys(INSIGHT_METRICS) as InsightMetric[];

/** What a breakdown groups by; a metadata key is a query parameter ($4), never SQL text. */
const SEGMENTS: Record<string, string> = {
  none: 'NULL::text',
  browser: 'p.browser',
  browserVersion: "p.browser || ' ' || p.browser_version",
  os: 'p.os',
  deviceType: 'p.device_type',
  sdkVersion: 'p.sdk_version',
  country: 'p.country',
  path: "s.local_candidate_type || '/' || s.local_protocol",
};

const BUCKETS = { hour: 'hour', day: 'day' } as const;

const DAY_MS = 86_400_000;

/**
 * The participants' summaries of a period with each one's segment of the breakdown, as the CTE `x`;
 * its parameters start with the project ($1) and the period ($2, $3); a metadata key is $4.
 */
function segmentScope(projectId: string, breakdown: string, from: number, to: number): { scope: string; params: unknown[] } {
  const key = breakdown.startsWith('metadata:') ? breakdown.slice('metadata:'.length) : null;
  const segment = key === null ? SEGMENTS[breakdown]! : 'coalesce(p.metadata ->> $4::text, c.metadata ->> $4::text)';
  return {
    scope: `WITH x AS (
      SELECT ${segment} AS segment, s.* FROM participant_summary s JOIN participant p ON p.id = s.participant_id JOIN call c ON c.id = s.call_id
      WHERE s.project_id = $1 AND s.started_at >= to_timestamp($2::float8 / 1000.0) AND s.started_at < to_timestamp($3::float8 / 1000.0))`,
    params: [projectId, from, to, ...(key === null ? [] : [key])],
  };
}

/** Calls a drill-down lists at most: the newest of the segment. */
export const DRILL_DOWN_CALLS = 10_000;

/**
 * The calls behind a segment of an insights breakdown (null: the unknown segment) in a period: those
 * with a participant of the segment who joined then, and who had `issue` if one is named; the newest first.
 */
export async function callsInSegment(
  db: Database,
  projectId: string,
  q: { breakdown: string; segment: string | null; from: number; to: number; issue?: string | undefined },
): Promise<bigint[]> {
  const { scope, params } = segmentScope(projectId, q.breakdown, q.from, q.to);
  const at = params.length;
  const { rows } = await db.pool.query<{ call_id: string }>(
    `${scope}
     SELECT call_id FROM x WHERE segment IS NOT DISTINCT FROM $${at + 1}::text AND ($${at + 2}::text IS NULL OR $${at + 2}::text = ANY(issues))
     GROUP BY call_id ORDER BY max(started_at) DESC LIMIT ${DRILL_DOWN_CALLS}`,
    [...params, q.segment, q.issue ?? null],
  );
  return rows.map((r) => BigInt(r.call_id));
}

/**
 * The fleet's quality over a period, from participants' summaries (never samples): per segment of the
 * breakdown, calls, participants and participant-minutes, each metric's distribution over participants
 * (mean, p50, p90, p99), and the share of calls and of participant-minutes with each issue type; and the
 * score's distribution per time bucket and segment.
 */
export async function loadInsights(db: Database, projectId: string, query: InsightsQuery): Promise<Insights> {
  const to = query.to ?? Date.now();
  const from = query.from ?? to - 7 * DAY_MS;
  const breakdown = query.breakdown ?? 'none';
  const bucket = query.bucket ?? 'day';
  const { scope, params } = segmentScope(projectId, breakdown, from, to);
  // Aliases are the column's name: unquoted SQL names are folded to lower case.
  const distribution = (column: string) =>
    `count(${column})::int AS ${column}_n, avg(${column})::float8 AS ${column}_mean, percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY ${column}) AS ${column}_p`;
  const [segments, issues, overTime] = await Promise.all([
    db.pool.query<Record<string, unknown> & { segment: string | null; calls: number; participants: number; minutes: number; setup_failures: number }>(
      `${scope}
       SELECT segment, count(DISTINCT call_id)::int AS calls, count(*)::int AS participants, (sum(seconds) / 60)::float8 AS minutes,
              count(*) FILTER (WHERE setup_failed)::int AS setup_failures,
              ${METRICS.map((m) => distribution(COLUMNS[m])).join(', ')}
       FROM x GROUP BY segment ORDER BY count(*) DESC, segment`,
      params,
    ),
    db.pool.query<{ segment: string | null; type: string; calls: number; minutes: number }>(
      `${scope}
       SELECT segment, t AS type, count(DISTINCT call_id)::int AS calls, (sum(seconds) / 60)::float8 AS minutes FROM x, unnest(x.issues) t GROUP BY segment, t`,
      params,
    ),
    db.pool.query<Record<string, unknown> & { ts: Date; segment: string | null; participants: number }>(
      `${scope}
       SELECT date_trunc('${BUCKETS[bucket]}', started_at, 'UTC') AS ts, segment, count(*)::int AS participants, ${distribution('score')}
       FROM x GROUP BY 1, 2 ORDER BY 1, 2`,
      params,
    ),
  ]);
  const of = (row: Record<string, unknown>, column: string) => {
    const p = (row[`${column}_p`] as (number | null)[] | null) ?? [null, null, null];
    return { n: row[`${column}_n`] as number, mean: (row[`${column}_mean`] as number | null) ?? null, p50: p[0] ?? null, p90: p[1] ?? null, p99: p[2] ?? null };
  };
  return {
    from,
    to,
    breakdown,
    bucket,
    segments: segments.rows.map((r) => ({
      segment: r.segment,
      calls: r.calls,
      participants: r.participants,
      minutes: r.minutes ?? 0,
      setupFailures: r.setup_failures,
      metrics: Object.fromEntries(METRICS.map((m) => [m, of(r, COLUMNS[m])])),
      issues: Object.fromEntries(
        issues.rows
          .filter((i) => i.segment === r.segment)
          .map((i) => [i.type, { callsShare: i.calls / r.calls, minutesShare: r.minutes ? i.minutes / r.minutes : 0 }]),
      ),
    })),
    overTime: overTime.rows.map((r) => ({ ts: r.ts.getTime(), segment: r.segment, participants: r.participants, score: of(r, 'score') })),
  };
}
