import { mean } from '@rtcscope/metrics';
import type { Verdict } from '@rtcscope/metrics';
import type { CallDetail, CallEvents } from '@rtcscope/protocol';
import { streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import { callJudgements, verdictOf } from '../diagnosis/store.js';
import { loadCallRecord, loadEvents } from '../samples/call-record.js';
import { loadSeries } from '../samples/call-series.js';
import { isConnectedEvent, SETUP_GRACE_S } from '../samples/connected.js';
import type { Database } from '../db/database.js';

/** A live call's summaries are written again this often. */
export const LIVE_EVERY_S = 60;
/** An ended call's are written this long after it ended: the diagnosis has stored its last issues and scores by then. */
export const AFTER_END_S = 10;

export interface ParticipantSummary {
  participantDbId: number;
  startedAt: number;
  endedAt: number | null;
  seconds: number;
  score: number | null;
  rttMs: number | null;
  lossPct: number | null;
  jitterMs: number | null;
  sentKbps: number | null;
  receivedKbps: number | null;
  fps: number | null;
  height: number | null;
  freezes: number | null;
  setupMs: number | null;
  /** It never connected, nor sent or received media, and its set-up is decided (it left, or waited SETUP_GRACE_S). */
  setupFailed: boolean;
  localCandidateType: string | null;
  localProtocol: string | null;
  issues: string[];
  /** The call's verdict, the same on each of its participants' rows: insights count calls by it as the calls list shows them. */
  verdict: Verdict;
}

type Means = Map<number, (number | null)[]>;

/** Each stream's mean of each field over the points that measured it. */
function streamMeans(points: readonly { id: number; v: (number | null)[] }[]): Means {
  const sums = new Map<number, { sum: number[]; n: number[] }>();
  for (const pt of points) {
    let acc = sums.get(pt.id);
    if (!acc) sums.set(pt.id, (acc = { sum: [], n: [] }));
    pt.v.forEach((v, k) => {
      if (v === null) return;
      acc.sum[k] = (acc.sum[k] ?? 0) + v;
      acc.n[k] = (acc.n[k] ?? 0) + 1;
    });
  }
  return new Map(
    [...sums].map(([id, acc]) => [id, Array.from({ length: acc.sum.length }, (_, k) => (acc.n[k] ? acc.sum[k]! / acc.n[k]! : null))]),
  );
}

/**
 * Each participant of a call in a row, from the call's stored samples averaged over its whole length, its
 * scores, events and issues. Returns false without such a call.
 */
export async function summarizeCall(db: Database, projectId: string, callId: string, now?: number): Promise<boolean> {
  const [record, events] = await Promise.all([loadCallRecord(db, projectId, callId), loadEvents(db, projectId, callId)]);
  if (!record || !events) return false;
  const verdict = verdictOf((await callJudgements(db.pool, [record.row.id])).get(String(record.row.id)) ?? { score: null, issues: [] });
  // Second by second (up to ~2.8 hours, averaged buckets beyond): means over samples, not over 10-s rollups of unequal fill.
  const series = await loadSeries(db, projectId, callId, { maxPoints: 10_000 });
  if (series === null || series === 'reversed') return false;
  const means = streamMeans(series.streams);
  const { rows: scored } = await db.pool.query<{ participant: string; score: number }>(
    `SELECT participant, avg(lowest)::float8 AS score FROM participant_score
     WHERE call_id = (SELECT id FROM call WHERE project_id = $1 AND external_id = $2) GROUP BY participant`,
    [projectId, callId],
  );
  const { rows: raised } = await db.pool.query<{ participant: string; types: string[] }>(
    `SELECT i.participant, array_agg(DISTINCT i.type ORDER BY i.type) AS types FROM call_issue i JOIN call c ON c.id = i.call_id
     WHERE c.project_id = $1 AND c.external_id = $2 GROUP BY i.participant`,
    [projectId, callId],
  );
  const { rows: ids } = await db.pool.query<{ id: string; call_id: string; external_id: string }>(
    'SELECT p.id, p.call_id, p.external_id FROM participant p JOIN call c ON c.id = p.call_id WHERE c.project_id = $1 AND c.external_id = $2',
    [projectId, callId],
  );
  const dbId = new Map(ids.map((r) => [r.external_id, Number(r.id)]));
  const scores = new Map(scored.map((r) => [r.participant, r.score]));
  const issues = new Map(raised.map((r) => [r.participant, r.types]));
  const summaries = record.participants.map((p) => ({
    ...summarize(p, means, events, scores.get(p.id) ?? null, issues.get(p.id) ?? [], dbId.get(p.id)!),
    verdict,
  }));
  const callDbId = ids[0]?.call_id;
  if (callDbId === undefined) return true;
  await writeSummaries(db, projectId, callDbId, summaries, now);
  return true;
}

function summarize(
  p: CallDetail['participants'][number],
  means: Means,
  events: CallEvents,
  score: number | null,
  issues: string[],
  participantDbId: number,
): Omit<ParticipantSummary, 'verdict'> {
  const streams = p.connections.flatMap((c) => c.streams);
  const of = (direction: 'in' | 'out', kind?: 'audio' | 'video') =>
    streams
      .filter((s) => s.direction === direction && (!kind || s.kind === kind))
      .map((s) => means.get(s.id))
      .filter((v) => v !== undefined);
  const field = (values: (number | null)[][], name: StreamFieldName) =>
    values.map((v) => v[streamFieldIndex(name)] ?? null).filter((x): x is number => x !== null);
  const sum = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) : null);
  const end = p.leftAt ?? p.lastSeenAt;
  const seconds = Math.max(0, (end - p.joinedAt) / 1000);
  const freezesPerSecond = sum(field(of('in', 'video'), 'freezes'));
  const path = p.connections.find((c) => c.localCandidateType !== null);
  const setup = setupMs(p.id, p.joinedAt, events);
  const sentKbps = sum(field(of('out'), 'kbps'));
  const receivedKbps = sum(field(of('in'), 'kbps'));
  const media = (sentKbps ?? 0) > 0 || (receivedKbps ?? 0) > 0;
  return {
    participantDbId,
    startedAt: p.joinedAt,
    endedAt: p.leftAt,
    seconds,
    score,
    rttMs: mean(field(of('out'), 'rttMs')),
    lossPct: mean(field(of('in'), 'lossPct')),
    jitterMs: mean(field(of('in'), 'jitterMs')),
    sentKbps,
    receivedKbps,
    fps: mean(field(of('in', 'video'), 'fps')),
    height: mean(field(of('in', 'video'), 'height')),
    freezes: freezesPerSecond === null ? null : Math.round(freezesPerSecond * seconds),
    setupMs: setup,
    setupFailed: setup === null && !media && (p.leftAt !== null || seconds >= SETUP_GRACE_S),
    localCandidateType: path?.localCandidateType ?? null,
    localProtocol: path?.localProtocol ?? null,
    issues,
  };
}

/** From the participant's first connection added (or its joining) to its first connection connected. */
function setupMs(participant: string, joinedAt: number, events: CallEvents): number | null {
  const own = events.events.filter((e) => e.participantId === participant);
  const connected = own.find(isConnectedEvent);
  if (!connected) return null;
  const start = own.find((e) => e.type === 'connection-added')?.ts ?? joinedAt;
  return Math.max(0, connected.ts - start);
}

async function writeSummaries(
  db: Database,
  projectId: string,
  callDbId: string,
  summaries: ParticipantSummary[],
  now: number | undefined,
): Promise<void> {
  const col = <K extends keyof ParticipantSummary>(k: K) => summaries.map((s) => s[k]);
  const time = (ts: number | null) => (ts === null ? null : new Date(ts).toISOString());
  await db.pool.query(
    `WITH x AS (
       SELECT * FROM unnest($3::bigint[], $4::timestamptz[], $5::timestamptz[], $6::real[], $7::real[], $8::real[], $9::real[], $10::real[],
                            $11::real[], $12::real[], $13::real[], $14::real[], $15::int[], $16::real[], $17::text[], $18::text[], $19::text[], $21::boolean[], $22::text[])
         AS x(participant_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms, sent_kbps, received_kbps, fps, height, freezes, setup_ms,
              local_candidate_type, local_protocol, issues, setup_failed, verdict)
     ), w AS (
       INSERT INTO participant_summary (participant_id, project_id, call_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms,
                                        sent_kbps, received_kbps, fps, height, freezes, setup_ms, local_candidate_type, local_protocol, issues, setup_failed, verdict)
       SELECT participant_id, $1, $2, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms, sent_kbps, received_kbps, fps, height,
              freezes, setup_ms, local_candidate_type, local_protocol, string_to_array(issues, ',')::text[], setup_failed, verdict FROM x
       ON CONFLICT (participant_id) DO UPDATE SET
         started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, seconds = EXCLUDED.seconds, score = EXCLUDED.score, rtt_ms = EXCLUDED.rtt_ms,
         loss_pct = EXCLUDED.loss_pct, jitter_ms = EXCLUDED.jitter_ms, sent_kbps = EXCLUDED.sent_kbps, received_kbps = EXCLUDED.received_kbps,
         fps = EXCLUDED.fps, height = EXCLUDED.height, freezes = EXCLUDED.freezes, setup_ms = EXCLUDED.setup_ms,
         local_candidate_type = EXCLUDED.local_candidate_type, local_protocol = EXCLUDED.local_protocol, issues = EXCLUDED.issues,
         setup_failed = EXCLUDED.setup_failed, verdict = EXCLUDED.verdict
     ), dirty AS (
       -- Their days' insights are rolled up again (day-rollup.ts).
       INSERT INTO insight_day_dirty (project_id, day) SELECT DISTINCT $1::uuid, (started_at AT TIME ZONE 'UTC')::date FROM x ON CONFLICT DO NOTHING
     )
     UPDATE call SET summarized_at = coalesce(to_timestamp($20::float8 / 1000.0), now()) WHERE id = $2`,
    [
      projectId,
      callDbId,
      col('participantDbId'),
      col('startedAt').map(time),
      col('endedAt').map(time),
      col('seconds'),
      col('score'),
      col('rttMs'),
      col('lossPct'),
      col('jitterMs'),
      col('sentKbps'),
      col('receivedKbps'),
      col('fps'),
      col('height'),
      col('freezes'),
      col('setupMs'),
      col('localCandidateType'),
      col('localProtocol'),
      col('issues').map((types) => types.join(',')),
      now ?? null,
      col('setupFailed'),
      col('verdict'),
    ],
  );
}

/**
 * Writes the summaries that are due, up to `limit` calls: live calls' every LIVE_EVERY_S, ended calls'
 * once AFTER_END_S after they ended (calls that ended before summaries existed too), those whose
 * summary is the oldest first — when more are due than a round takes, every call waits its turn,
 * rather than those whose SDKs happened to send last. Returns the calls summarized. `now` is the
 * database's clock unless a test sets it.
 */
export async function summarizeDue(db: Database, limit = 50, now?: number): Promise<{ projectId: string; callId: string }[]> {
  const { rows } = await db.pool.query<{ project_id: string; external_id: string }>(
    `SELECT project_id, external_id FROM call c, (SELECT coalesce(to_timestamp($1::float8 / 1000.0), now()) AS t) n
     WHERE (c.ended_at IS NULL AND c.last_seen_at > n.t - interval '10 minutes' AND (c.summarized_at IS NULL OR c.summarized_at < n.t - make_interval(secs => $2)))
        OR (c.ended_at IS NOT NULL AND c.ended_at < n.t - make_interval(secs => $3) AND (c.summarized_at IS NULL OR c.summarized_at < c.ended_at + make_interval(secs => $3)))
     ORDER BY coalesce(c.summarized_at, c.started_at) LIMIT $4`,
    [now ?? null, LIVE_EVERY_S, AFTER_END_S, limit],
  );
  const done: { projectId: string; callId: string }[] = [];
  for (const r of rows)
    if (await summarizeCall(db, r.project_id, r.external_id, now)) done.push({ projectId: r.project_id, callId: r.external_id });
  return done;
}
