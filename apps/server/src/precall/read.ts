import type {
  PrecallDetail,
  PrecallInsights,
  PrecallInsightsQuery,
  PrecallList,
  PrecallListQuery,
  PrecallReport,
  PrecallSummary,
} from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';
import { SEGMENTS } from '../insights/segments.js';

const DAY_MS = 86_400_000;
const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

const select = {
  createdAt: true,
  ticket: true,
  verdict: true,
  transport: true,
  needsTurn: true,
  udpOk: true,
  tcpOk: true,
  tlsOk: true,
  throughputKbps: true,
  rttMs: true,
  jitterMs: true,
  lossPct: true,
  report: true,
  call: { select: { externalId: true, participants: { select: { browser: true, os: true, country: true }, take: 1 } } },
} satisfies Prisma.PrecallTestSelect;
type Row = Prisma.PrecallTestGetPayload<{ select: typeof select }>;

function summary(row: Row): PrecallSummary {
  const report = row.report as unknown as PrecallReport;
  const client = row.call.participants[0];
  return {
    callId: row.call.externalId,
    createdAt: row.createdAt.getTime(),
    ticket: row.ticket,
    verdict: row.verdict as PrecallSummary['verdict'],
    findings: [...report.findings].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]).map((f) => f.text),
    transport: row.transport as PrecallSummary['transport'],
    needsTurn: row.needsTurn,
    udpOk: row.udpOk,
    tcpOk: row.tcpOk,
    tlsOk: row.tlsOk,
    throughputKbps: row.throughputKbps,
    rttMs: row.rttMs,
    jitterMs: row.jitterMs,
    lossPct: row.lossPct,
    browser: client?.browser ?? null,
    os: client?.os ?? null,
    country: client?.country ?? null,
  };
}

/** The project's pre-call tests, newest first. */
export async function listPrecallTests(db: Database, projectId: string, query: PrecallListQuery): Promise<PrecallList> {
  const rows = await db.prisma.precallTest.findMany({
    where: {
      projectId,
      ...(query.verdict ? { verdict: query.verdict } : {}),
      ...(query.ticket ? { ticket: query.ticket } : {}),
      ...(query.from !== undefined || query.to !== undefined
        ? {
            createdAt: {
              ...(query.from !== undefined ? { gte: new Date(query.from) } : {}),
              ...(query.to !== undefined ? { lt: new Date(query.to) } : {}),
            },
          }
        : {}),
    },
    select,
    orderBy: { createdAt: 'desc' },
    take: query.limit ?? 100,
  });
  return { tests: rows.map(summary) };
}

/** One test with its whole report, by its call's id; null when the project has none such. */
export async function readPrecallTest(db: Database, projectId: string, callId: string): Promise<PrecallDetail | null> {
  const row = await db.prisma.precallTest.findFirst({ where: { projectId, call: { externalId: callId } }, select });
  return row ? { test: { ...summary(row), report: row.report as unknown as PrecallReport } } : null;
}

/** Breakdown expressions over the test `t` and its tester `p` (the calls' insights' own, the path being the way through TURN). */
const segmentOf = (breakdown: string) =>
  breakdown.startsWith('metadata:')
    ? 'coalesce(p.metadata ->> $4::text, c.metadata ->> $4::text)'
    : breakdown === 'path'
      ? 't.transport'
      : SEGMENTS[breakdown]!;

/**
 * The tests of a period by segment: verdicts, the share that needed TURN, found UDP blocked or went over
 * TCP or TLS, and throughput, RTT and loss percentiles. Percentiles are PostgreSQL's (Prisma has none).
 */
export async function precallInsights(db: Database, projectId: string, query: PrecallInsightsQuery): Promise<PrecallInsights> {
  const to = query.to ?? Date.now();
  const from = query.from ?? to - 7 * DAY_MS;
  const breakdown = query.breakdown ?? 'none';
  const key = breakdown.startsWith('metadata:') ? [breakdown.slice('metadata:'.length)] : [];
  const pct = (condition: string) => `coalesce(100.0 * count(*) FILTER (WHERE ${condition}) / count(*), 0)::float8`;
  const percentiles = (column: string) =>
    `CASE WHEN count(${column}) = 0 THEN NULL ELSE jsonb_build_object(
       'p10', percentile_cont(0.1) WITHIN GROUP (ORDER BY ${column}), 'p50', percentile_cont(0.5) WITHIN GROUP (ORDER BY ${column}),
       'p90', percentile_cont(0.9) WITHIN GROUP (ORDER BY ${column})) END`;
  const { rows } = await db.pool.query<PrecallInsights['segments'][number]>(
    `SELECT segment, count(*)::int AS tests,
            jsonb_build_object('good', count(*) FILTER (WHERE verdict = 'good'), 'fair', count(*) FILTER (WHERE verdict = 'fair'),
                               'poor', count(*) FILTER (WHERE verdict = 'poor'), 'failed', count(*) FILTER (WHERE verdict = 'failed')) AS verdicts,
            ${pct('needs_turn')} AS "needsTurnPct",
            coalesce(100.0 * count(*) FILTER (WHERE udp_ok = false) / nullif(count(udp_ok), 0), 0)::float8 AS "udpBlockedPct",
            ${pct("transport = 'tcp'")} AS "viaTcpPct", ${pct("transport = 'tls'")} AS "viaTlsPct",
            ${percentiles('throughput_kbps')} AS "throughputKbps", ${percentiles('rtt_ms')} AS "rttMs", ${percentiles('loss_pct')} AS "lossPct"
     FROM (
       SELECT ${segmentOf(breakdown)} AS segment, t.*
       FROM precall_test t JOIN call c ON c.id = t.call_id JOIN participant p ON p.call_id = c.id
       WHERE t.project_id = $1 AND t.created_at >= to_timestamp($2::float8 / 1000.0) AND t.created_at < to_timestamp($3::float8 / 1000.0)
     ) x
     GROUP BY segment ORDER BY count(*) DESC, segment NULLS LAST`,
    [projectId, from, to, ...key],
  );
  return { from, to, breakdown, segments: rows };
}
