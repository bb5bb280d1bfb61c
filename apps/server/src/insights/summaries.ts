import { mean } from '@rtcscope/metrics';
import type { Verdict } from '@rtcscope/metrics';
import type { CallEvents } from '@rtcscope/protocol';
import { streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import type pg from 'pg';
import { callJudgements, verdictOf } from '../diagnosis/store.js';
import { inTransaction } from '../db/client.js';
import { dataOnlySql, isConnectedEvent, SETUP_GRACE_S } from '../samples/connected.js';
import type { Database } from '../db/database.js';
import { streamMeans, type StreamMeans } from './stream-means.js';

/** A live call's summaries are written again this often. */
export const LIVE_EVERY_S = 60;
/** An ended call's are written this long after it ended: the diagnosis has stored its last issues and scores by then. */
export const AFTER_END_S = 10;

interface ParticipantSummary {
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

/** What a participant's summary reads of its call's stored participants, connections and streams. */
interface SummaryParticipant {
  dbId: number;
  id: string;
  joinedAt: number;
  leftAt: number | null;
  lastSeenAt: number;
  connections: {
    localCandidateType: string | null;
    localProtocol: string | null;
    streams: { id: number; direction: 'in' | 'out'; kind: 'audio' | 'video' }[];
  }[];
}

/** A call whose summaries are due, claimed by this round. */
interface DueCall {
  id: string;
  project_id: string;
  external_id: string;
}

type ByCall<T> = Map<string, T>;

const groupBy = <R extends { call_id: string }, T>(rows: R[], init: () => T, add: (acc: T, r: R) => void): ByCall<T> => {
  const out = new Map<string, T>();
  for (const r of rows) {
    let acc = out.get(r.call_id);
    if (acc === undefined) out.set(r.call_id, (acc = init()));
    add(acc, r);
  }
  return out;
};

/** The calls' participants with their connections and streams, in joining (then id) order. */
async function participantsOf(db: pg.Pool, ids: readonly string[]): Promise<ByCall<SummaryParticipant[]>> {
  const { rows } = await db.query<{
    call_id: string;
    participant_id: string;
    external_id: string;
    joined_at: Date;
    left_at: Date | null;
    last_seen_at: Date;
    connection_id: string | null;
    local_candidate_type: string | null;
    local_protocol: string | null;
    stream_id: string | null;
    direction: 'in' | 'out' | null;
    kind: 'audio' | 'video' | null;
  }>(
    `SELECT p.call_id::text, p.id::text AS participant_id, p.external_id, p.joined_at, p.left_at, p.last_seen_at, c.id::text AS connection_id,
            c.local_candidate_type, c.local_protocol, s.id::text AS stream_id, s.direction, s.kind
     FROM participant p LEFT JOIN connection c ON c.participant_id = p.id LEFT JOIN stream s ON s.connection_id = c.id
     WHERE p.call_id = ANY ($1::bigint[]) ORDER BY p.joined_at, p.id, c.id, s.id`,
    [ids],
  );
  const connections = new Map<string, SummaryParticipant['connections'][number]>();
  return groupBy(
    rows,
    () => [] as SummaryParticipant[],
    (list, r) => {
      let p = list.at(-1);
      if (p?.dbId !== Number(r.participant_id)) {
        p = {
          dbId: Number(r.participant_id),
          id: r.external_id,
          joinedAt: r.joined_at.getTime(),
          leftAt: r.left_at?.getTime() ?? null,
          lastSeenAt: r.last_seen_at.getTime(),
          connections: [],
        };
        list.push(p);
      }
      if (r.connection_id === null) return;
      let connection = connections.get(r.connection_id);
      if (!connection) {
        connections.set(
          r.connection_id,
          (connection = { localCandidateType: r.local_candidate_type, localProtocol: r.local_protocol, streams: [] }),
        );
        p.connections.push(connection);
      }
      if (r.stream_id !== null) connection.streams.push({ id: Number(r.stream_id), direction: r.direction!, kind: r.kind! });
    },
  );
}

/** The calls' events that tell a participant's set-up (its media connections added, connected), in time order. */
async function setupEventsOf(db: pg.Pool, ids: readonly string[]): Promise<ByCall<CallEvents['events']>> {
  const { rows } = await db.query<{ call_id: string; participant: string; ts: Date; type: string; detail: string | null }>(
    `SELECT e.call_id::text, p.external_id AS participant, e.ts, e.type, e.detail FROM call_event e JOIN participant p ON p.id = e.participant_id
     WHERE e.call_id = ANY ($1::bigint[]) AND e.type IN ('connection-added', 'connection-state', 'ice-connection-state')
       AND NOT ${dataOnlySql('e')} ORDER BY e.ts, e.id`,
    [ids],
  );
  return groupBy(
    rows,
    () => [] as CallEvents['events'],
    (list, r) => list.push({ ts: r.ts.getTime(), participantId: r.participant, connectionId: null, type: r.type, detail: r.detail }),
  );
}

/** Each participant's mean score over its windows, by call. */
async function scoresOf(db: pg.Pool, ids: readonly string[]): Promise<ByCall<Map<string, number>>> {
  const { rows } = await db.query<{ call_id: string; participant: string; score: number }>(
    'SELECT call_id::text, participant, avg(score)::float8 AS score FROM participant_score WHERE call_id = ANY ($1::bigint[]) GROUP BY call_id, participant',
    [ids],
  );
  return groupBy(
    rows,
    () => new Map<string, number>(),
    (m, r) => m.set(r.participant, r.score),
  );
}

/** The kinds of issue raised on each participant, by call. */
async function issuesOf(db: pg.Pool, ids: readonly string[]): Promise<ByCall<Map<string, string[]>>> {
  const { rows } = await db.query<{ call_id: string; participant: string; types: string[] }>(
    `SELECT call_id::text, participant, array_agg(DISTINCT type ORDER BY type) AS types FROM call_issue
     WHERE call_id = ANY ($1::bigint[]) GROUP BY call_id, participant`,
    [ids],
  );
  return groupBy(
    rows,
    () => new Map<string, string[]>(),
    (m, r) => m.set(r.participant, r.types),
  );
}

/**
 * Writes the calls' participants' summaries, each from its streams' means over the call so far (live:
 * its folds advanced by the last samples; `whole`: from all its samples), its scores, set-up events and
 * issues, and the call's verdict: a handful of statements for the whole set, whatever its size. `reads`
 * reads, `writes` computes the means and writes (the ended calls' transaction).
 */
async function summarizeCalls(
  reads: pg.Pool,
  writes: pg.Pool | pg.PoolClient,
  calls: readonly DueCall[],
  whole: boolean,
  now?: number,
): Promise<void> {
  if (!calls.length) return;
  const ids = calls.map((c) => c.id);
  const [means, participants, events, scores, issues, judgements] = await Promise.all([
    streamMeans(writes, ids, whole, now),
    participantsOf(reads, ids),
    setupEventsOf(reads, ids),
    scoresOf(reads, ids),
    issuesOf(reads, ids),
    callJudgements(
      reads,
      ids.map((id) => BigInt(id)),
    ),
  ]);
  const rows = calls.flatMap((call) => {
    const verdict = verdictOf(judgements.get(call.id) ?? { score: null, issues: [] });
    return (participants.get(call.id) ?? []).map((p) => ({
      ...summarize(p, means, events.get(call.id) ?? [], scores.get(call.id)?.get(p.id) ?? null, issues.get(call.id)?.get(p.id) ?? []),
      verdict,
      projectId: call.project_id,
      callDbId: call.id,
    }));
  });
  await writeSummaries(writes, rows, ids, whole, now);
}

function summarize(
  p: SummaryParticipant,
  means: StreamMeans,
  events: CallEvents['events'],
  score: number | null,
  issues: string[],
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
    participantDbId: p.dbId,
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
function setupMs(participant: string, joinedAt: number, events: CallEvents['events']): number | null {
  const own = events.filter((e) => e.participantId === participant);
  const connected = own.find(isConnectedEvent);
  if (!connected) return null;
  const start = own.find((e) => e.type === 'connection-added')?.ts ?? joinedAt;
  return Math.max(0, connected.ts - start);
}

type SummaryRow = ParticipantSummary & { projectId: string; callDbId: string };

/**
 * Upserts the rows and marks their days for the rollups; `whole`: marks the calls (those without
 * participants too) summarized for the end they have. Live calls' rows were marked when they were
 * claimed: marked again here, every call row of a round would stay locked while the round's rows are
 * written, and ingest, which updates the same rows, would wait (`bench:ingest` failed at 1,250 live calls).
 */
async function writeSummaries(
  db: pg.Pool | pg.PoolClient,
  summaries: SummaryRow[],
  callDbIds: string[],
  whole: boolean,
  now: number | undefined,
): Promise<void> {
  const col = <K extends keyof SummaryRow>(k: K) => summaries.map((s) => s[k]);
  const time = (ts: number | null) => (ts === null ? null : new Date(ts).toISOString());
  await db.query(
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::timestamptz[], $5::timestamptz[], $6::real[], $7::real[], $8::real[], $9::real[],
                            $10::real[], $11::real[], $12::real[], $13::real[], $14::real[], $15::int[], $16::real[], $17::text[], $18::text[], $19::text[],
                            $20::boolean[], $21::text[])
         AS x(project_id, call_id, participant_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms, sent_kbps, received_kbps, fps, height,
              freezes, setup_ms, local_candidate_type, local_protocol, issues, setup_failed, verdict)
     ), w AS (
       INSERT INTO participant_summary (participant_id, project_id, call_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms,
                                        sent_kbps, received_kbps, fps, height, freezes, setup_ms, local_candidate_type, local_protocol, issues, setup_failed, verdict)
       SELECT participant_id, project_id, call_id, started_at, ended_at, seconds, score, rtt_ms, loss_pct, jitter_ms, sent_kbps, received_kbps, fps, height,
              freezes, setup_ms, local_candidate_type, local_protocol, string_to_array(issues, ',')::text[], setup_failed, verdict FROM x
       ON CONFLICT (participant_id) DO UPDATE SET
         started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, seconds = EXCLUDED.seconds, score = EXCLUDED.score, rtt_ms = EXCLUDED.rtt_ms,
         loss_pct = EXCLUDED.loss_pct, jitter_ms = EXCLUDED.jitter_ms, sent_kbps = EXCLUDED.sent_kbps, received_kbps = EXCLUDED.received_kbps,
         fps = EXCLUDED.fps, height = EXCLUDED.height, freezes = EXCLUDED.freezes, setup_ms = EXCLUDED.setup_ms,
         local_candidate_type = EXCLUDED.local_candidate_type, local_protocol = EXCLUDED.local_protocol, issues = EXCLUDED.issues,
         setup_failed = EXCLUDED.setup_failed, verdict = EXCLUDED.verdict
     ), dirty AS (
       -- Their days' insights are rolled up again (day-rollup.ts).
       INSERT INTO insight_day_dirty (project_id, day) SELECT DISTINCT project_id, (started_at AT TIME ZONE 'UTC')::date FROM x ON CONFLICT DO NOTHING
     )
     UPDATE call SET summarized_at = coalesce(to_timestamp($22::float8 / 1000.0), now()), summarized_end = ended_at WHERE $24 AND id = ANY ($23::bigint[])`,
    [
      col('projectId'),
      col('callDbId'),
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
      col('setupFailed'),
      col('verdict'),
      now ?? null,
      callDbIds,
      whole,
    ],
  );
}

/** Calls summarized a round at most: an ended call's summary reads all its samples, a live call's only those since its last. */
export const PER_ROUND = { ended: 50, live: 500 };

const NOW = 'coalesce(to_timestamp($1::float8 / 1000.0), now())';
const OLDEST_FIRST = 'ORDER BY coalesce(c.summarized_at, c.started_at) LIMIT $3 FOR UPDATE OF c SKIP LOCKED';

/**
 * Ended calls due ($2: AFTER_END_S): not yet summarized for the end they have now (one that gets samples
 * again ends anew), locked by the round's transaction until their summaries are written.
 */
const ENDED_DUE = `SELECT c.id::text, c.project_id, c.external_id FROM call c
  WHERE c.ended_at IS NOT NULL AND c.summarized_end IS DISTINCT FROM c.ended_at AND c.ended_at < ${NOW} - make_interval(secs => $2)
  ${OLDEST_FIRST}`;

/**
 * Live calls due ($2: LIVE_EVERY_S), claimed by marking them summarized at once, in a statement of
 * its own: no other node takes them for a minute, and ingest, which updates the same rows, waits at most
 * for this statement, never for the round; rows ingest holds are skipped. A round that fails leaves
 * their summaries a minute older.
 */
const LIVE_DUE = `UPDATE call SET summarized_at = ${NOW} FROM (
    SELECT c.id FROM call c
    WHERE c.ended_at IS NULL AND c.last_seen_at > ${NOW} - interval '10 minutes'
      AND (c.summarized_at IS NULL OR c.summarized_at < ${NOW} - make_interval(secs => $2))
    ${OLDEST_FIRST}
  ) due
  WHERE call.id = due.id
  RETURNING call.id::text, call.project_id, call.external_id`;

/**
 * Writes the summaries that are due: ended calls' once AFTER_END_S after they ended (calls that ended
 * before summaries existed too), from all their samples; live calls' every LIVE_EVERY_S, from their
 * folds. Whose summary is the oldest goes first, so when more are due than a round takes, every call
 * waits its turn; nodes share the due calls (`SKIP LOCKED`) rather than each doing them all. Returns
 * the calls summarized. `now` is the database's clock unless a test sets it.
 */
export async function summarizeDue(db: Database, perRound = PER_ROUND, now?: number): Promise<{ projectId: string; callId: string }[]> {
  const ended = await inTransaction(db.pool, async (client) => {
    const { rows } = await client.query<DueCall>(ENDED_DUE, [now ?? null, AFTER_END_S, perRound.ended]);
    await summarizeCalls(db.pool, client, rows, true, now);
    return rows;
  });
  const { rows: live } = await db.pool.query<DueCall>(LIVE_DUE, [now ?? null, LIVE_EVERY_S, perRound.live]);
  // The bulk of a round, on the background connection: at 3,000 live calls its statements, ~0.36 s every
  // 5 s at normal priority, took ingest's acknowledgements from p99 167 to 317 ms. They hold no lock
  // ingest waits on (the claim above, which does, is not among them).
  await summarizeCalls(db.background.pool, db.background.pool, live, false, now);
  return [...ended, ...live].map((c) => ({ projectId: c.project_id, callId: c.external_id }));
}
