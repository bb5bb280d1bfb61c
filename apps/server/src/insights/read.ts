import type { CallSource, Insights, InsightsQuery } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import { loadDays } from './day-rollup.js';
import { addTo, emptyHistogram, type Histogram, quantile } from './histogram.js';
import { COLUMNS, METRICS, segmentScope } from './segments.js';

const BUCKETS = { hour: 'hour', day: 'day' } as const;

const DAY_MS = 86_400_000;

/** Participants a drill-down reads at most, newest first: the calls behind the newest of them. */
export const DRILL_DOWN_PARTICIPANTS = 5_000;

/**
 * The calls behind a segment of an insights breakdown (null: the unknown segment) in a period: those
 * with a participant of the segment who joined then, and who had `issue` if one is named; of the newest
 * DRILL_DOWN_PARTICIPANTS such participants, so it reads backwards along the summaries' time index and
 * stops early, however large the segment.
 */
export async function callsInSegment(
  db: Database,
  projectId: string,
  q: { breakdown: string; segment: string | null; from: number; to: number; issue?: string | undefined; source?: CallSource | undefined },
): Promise<bigint[]> {
  const { scope, params } = segmentScope(projectId, q.breakdown, q.from, q.to, q.source);
  const at = params.length;
  const { rows } = await db.pool.query<{ call_id: string }>(
    `${scope}
     SELECT call_id FROM x WHERE segment IS NOT DISTINCT FROM $${at + 1}::text AND ($${at + 2}::text IS NULL OR $${at + 2}::text = ANY(issues))
     ORDER BY started_at DESC LIMIT ${DRILL_DOWN_PARTICIPANTS}`,
    [...params, q.segment, q.issue ?? null],
  );
  return [...new Set(rows.map((r) => r.call_id))].map(BigInt);
}

/** Periods up to this long are read from the summaries themselves, with exact percentiles; longer ones from the days' rollups. */
export const EXACT_UP_TO_MS = 2 * DAY_MS;

/** Shares of the segment's calls by verdict, from calls counted per verdict; what no verdict covers is unknown. */
function verdictShares(calls: number, counted: ReadonlyMap<string, number>): Insights['segments'][number]['verdicts'] {
  const share = (v: string) => (calls ? (counted.get(v) ?? 0) / calls : 0);
  const [good, fair, poor] = [share('good'), share('fair'), share('poor')];
  return { good, fair, poor, unknown: calls ? Math.max(0, 1 - good - fair - poor) : 0 };
}

const distributionOf = (h: Histogram | undefined) =>
  !h || h.n === 0
    ? { n: 0, mean: null, p10: null, p50: null, p90: null, p99: null }
    : { n: h.n, mean: h.sum / h.n, p10: quantile(h, 0.1), p50: quantile(h, 0.5), p90: quantile(h, 0.9), p99: quantile(h, 0.99) };

/**
 * A long period's insights from the days' rollups (day-rollup.ts), taken to whole UTC days: counts as
 * exact as the summaries' (a call whose participants joined on two days counts on each), means exact,
 * percentiles within 1 % (histogram.ts), the score per day.
 */
async function fromDays(db: Database, projectId: string, breakdown: string, from: number, to: number): Promise<Insights> {
  const first = Math.floor(from / DAY_MS) * DAY_MS;
  const end = Math.ceil(to / DAY_MS) * DAY_MS;
  const days = await loadDays(db, projectId, breakdown, first, end);
  const segments = new Map<
    string | null,
    {
      calls: number;
      participants: number;
      minutes: number;
      setupFailures: number;
      metrics: Map<string, Histogram>;
      issues: Map<string, { calls: number; minutes: number }>;
      verdicts: Map<string, number>;
    }
  >();
  for (const d of days) {
    let s = segments.get(d.segment);
    if (!s)
      segments.set(
        d.segment,
        (s = { calls: 0, participants: 0, minutes: 0, setupFailures: 0, metrics: new Map(), issues: new Map(), verdicts: new Map() }),
      );
    s.calls += d.calls;
    s.participants += d.participants;
    s.minutes += d.minutes;
    s.setupFailures += d.setup_failures;
    for (const [metric, h] of Object.entries(d.metrics)) {
      const into = s.metrics.get(metric) ?? emptyHistogram();
      addTo(into, h);
      s.metrics.set(metric, into);
    }
    for (const [type, n] of Object.entries(d.issues)) {
      const into = s.issues.get(type) ?? { calls: 0, minutes: 0 };
      into.calls += n.calls;
      into.minutes += n.minutes;
      s.issues.set(type, into);
    }
    for (const [verdict, calls] of Object.entries(d.verdicts)) s.verdicts.set(verdict, (s.verdicts.get(verdict) ?? 0) + (calls ?? 0));
  }
  const ordered = [...segments].sort(
    ([a, x], [b, y]) => y.participants - x.participants || (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0),
  );
  return {
    from: first,
    to: end,
    breakdown,
    bucket: 'day',
    segments: ordered.map(([segment, s]) => ({
      segment,
      calls: s.calls,
      participants: s.participants,
      minutes: s.minutes,
      setupFailures: s.setupFailures,
      metrics: Object.fromEntries(METRICS.map((m) => [m, distributionOf(s.metrics.get(m))])),
      issues: Object.fromEntries(
        [...s.issues].map(([type, n]) => [type, { callsShare: n.calls / s.calls, minutesShare: s.minutes ? n.minutes / s.minutes : 0 }]),
      ),
      verdicts: verdictShares(s.calls, s.verdicts),
    })),
    overTime: days
      .map((d) => ({ ts: d.day.getTime(), segment: d.segment, participants: d.participants, score: distributionOf(d.metrics.score) }))
      .sort((a, b) => a.ts - b.ts || String(a.segment).localeCompare(String(b.segment))),
  };
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
  const source = query.source ?? 'live';
  // The days' rollups hold live traffic only; imported calls are few, read from their summaries.
  if (to - from > EXACT_UP_TO_MS && source === 'live') return fromDays(db, projectId, breakdown, from, to);
  const { scope, params } = segmentScope(projectId, breakdown, from, to, source);
  // Aliases are the column's name: unquoted SQL names are folded to lower case.
  const distribution = (column: string) =>
    `count(${column})::int AS ${column}_n, avg(${column})::float8 AS ${column}_mean, percentile_cont(ARRAY[0.1, 0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY ${column}) AS ${column}_p`;
  const [segments, issues, overTime, verdicts] = await Promise.all([
    db.pool.query<
      Record<string, unknown> & { segment: string | null; calls: number; participants: number; minutes: number; setup_failures: number }
    >(
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
    db.pool.query<{ segment: string | null; verdict: string; calls: number }>(
      `${scope}
       SELECT segment, verdict, count(DISTINCT call_id)::int AS calls FROM x WHERE verdict IS NOT NULL GROUP BY segment, verdict`,
      params,
    ),
  ]);
  const of = (row: Record<string, unknown>, column: string) => {
    const p = (row[`${column}_p`] as (number | null)[] | null) ?? [];
    return {
      n: row[`${column}_n`] as number,
      mean: (row[`${column}_mean`] as number | null) ?? null,
      p10: p[0] ?? null,
      p50: p[1] ?? null,
      p90: p[2] ?? null,
      p99: p[3] ?? null,
    };
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
      verdicts: verdictShares(r.calls, new Map(verdicts.rows.filter((v) => v.segment === r.segment).map((v) => [v.verdict, v.calls]))),
    })),
    overTime: overTime.rows.map((r) => ({ ts: r.ts.getTime(), segment: r.segment, participants: r.participants, score: of(r, 'score') })),
  };
}
