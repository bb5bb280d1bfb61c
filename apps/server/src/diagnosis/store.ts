import { callScores, type Issue, participantScores, SCORE_WINDOW_MS, type ScorePoint, scoreSummary } from '@rtcscope/diagnosis';
import { type CallDiagnosis, type CallIssue, type CallSummary, type Lowers, SCORE_FACTOR_NAMES } from '@rtcscope/protocol';
import { APP_LIMIT, issuesVerdict } from '@rtcscope/metrics';
import type pg from 'pg';
import { binaryArray } from '../db/binary-array.js';

/** A call's diagnosis as stored: its issues (open or cleared) and its streams' window scores. */

export interface IssueRow {
  id: string;
  call_id: string;
  participant: string;
  stream_id: string | null;
  connection_id: string | null;
  direction: 'in' | 'out' | null;
  type: string;
  category: CallIssue['category'];
  severity: CallIssue['severity'];
  started_at: Date;
  ended_at: Date | null;
  cause: string;
  evidence: CallIssue['evidence'];
  check_hint: string;
  caused_by: string | null;
}

export const toIssue = (r: IssueRow): CallIssue => ({
  id: Number(r.id),
  callId: r.call_id,
  type: r.type,
  category: r.category,
  severity: r.severity,
  participantId: r.participant,
  streamId: r.stream_id === null ? null : Number(r.stream_id),
  connectionId: r.connection_id === null ? null : Number(r.connection_id),
  direction: r.direction,
  start: r.started_at.getTime(),
  end: r.ended_at?.getTime() ?? null,
  cause: r.cause,
  evidence: r.evidence,
  check: r.check_hint,
  causeId: r.caused_by === null ? null : Number(r.caused_by),
});

export const ISSUE_COLUMNS = `i.id, c.external_id AS call_id, i.participant, i.stream_id, i.connection_id, i.direction, i.type, i.category,
  i.severity, i.started_at, i.ended_at, i.cause, i.evidence, i.check_hint, i.caused_by`;

/**
 * Stores a raised issue. One raised before at the same start (a diagnosis run again) is found, not stored
 * twice; one of the same kind on the same subject still open (left by a diagnosis thread or server that
 * stopped, and raised again by the one that took over) is continued, not stored again beside it.
 */
export async function insertIssue(pool: pg.Pool, projectId: string, callDbId: number, issue: Issue): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `WITH known AS (
       SELECT id FROM call_issue WHERE call_id = $2 AND type = $7 AND participant = $3 AND coalesce(stream_id, 0) = coalesce($4::bigint, 0)
         AND coalesce(connection_id, 0) = coalesce($5::bigint, 0) AND (ended_at IS NULL OR started_at = to_timestamp($10 / 1000.0))
       ORDER BY started_at DESC LIMIT 1),
     added AS (
       INSERT INTO call_issue (project_id, call_id, participant, stream_id, connection_id, direction, type, category, severity, started_at, ended_at, cause, evidence, check_hint)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, to_timestamp($10 / 1000.0), to_timestamp($11 / 1000.0), $12, $13, $14 WHERE NOT EXISTS (SELECT 1 FROM known)
       ON CONFLICT DO NOTHING RETURNING id)
     SELECT id FROM added
     UNION ALL
     SELECT id FROM known
     LIMIT 1`,
    [
      projectId,
      callDbId,
      issue.participant,
      issue.streamId,
      issue.connectionId,
      issue.direction,
      issue.type,
      issue.category,
      issue.severity,
      issue.start,
      issue.end,
      issue.cause,
      issue.evidence,
      issue.check,
    ],
  );
  return Number(rows[0]!.id);
}

/** Issues found in one go (an imported recording's): stored, then each linked to its cause. */
export async function insertIssues(pool: pg.Pool, projectId: string, callDbId: number, issues: readonly Issue[]): Promise<void> {
  const ids = new Map<Issue, number>();
  for (const issue of issues) ids.set(issue, await insertIssue(pool, projectId, callDbId, issue));
  for (const issue of issues) if (issue.causedBy) await updateIssue(pool, ids.get(issue)!, issue, ids.get(issue.causedBy) ?? null);
}

/** An issue made worse, cleared or linked to its cause (stored as `causeId`) since it was stored. */
export async function updateIssue(pool: pg.Pool, id: number, issue: Issue, causeId: number | null): Promise<void> {
  await pool.query(
    `UPDATE call_issue SET severity = $2, cause = $3, evidence = $4, ended_at = to_timestamp($5 / 1000.0), check_hint = $6, caused_by = $7 WHERE id = $1`,
    [id, issue.severity, issue.cause, issue.evidence, issue.end, issue.check, causeId],
  );
}

/**
 * Window scores of any number of calls, in one statement (a node writes them once a second): each
 * stream's with its weight, and each participant's, from the weighted sums of its audio's and its
 * video's scores (`av_score`, the database's `experienced`): a participant's streams close a window in
 * different writes, each adding to the sums. A stream's window stored already (a node taking over a call
 * scores it again) is replaced, and the participant's sums keep its first part.
 */
export async function insertScores(pool: pg.Pool, rows: readonly { callDbId: number; point: ScorePoint }[]): Promise<void> {
  if (!rows.length) return;
  const mos = (p: ScorePoint) => Math.min(5, Math.max(1, p.mos));
  await pool.query({
    name: 'diagnosis-scores-weighted-delay',
    text: `WITH input AS (
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::float8[], $4::float4[], $5::text[], $6::float4[], $7::text[], $8::text[], $9::float4[])
               AS x(c, s, t, m, l, w, p, k, d)
           ), streams AS (
             INSERT INTO stream_score (call_id, stream_id, ts, mos, lowers, weight, delay_ms)
             SELECT c, s, to_timestamp(t / 1000.0), m, l::real[], w, d FROM input
             ON CONFLICT (call_id, stream_id, ts) DO UPDATE SET mos = excluded.mos, lowers = excluded.lowers, weight = excluded.weight, delay_ms = excluded.delay_ms
             RETURNING call_id, stream_id, ts, (xmax = 0) AS inserted
           ), added AS (
             SELECT i.c, i.t, i.p,
                    coalesce(sum(i.m * i.w) FILTER (WHERE i.k = 'audio'), 0) AS a, coalesce(sum(i.w) FILTER (WHERE i.k = 'audio'), 0) AS aw,
                    coalesce(sum(i.m * i.w) FILTER (WHERE i.k = 'video'), 0) AS v, coalesce(sum(i.w) FILTER (WHERE i.k = 'video'), 0) AS vw
             FROM input i JOIN streams s ON s.call_id = i.c AND s.stream_id = i.s AND s.ts = to_timestamp(i.t / 1000.0) AND s.inserted
             GROUP BY i.c, i.t, i.p
           )
           INSERT INTO participant_score AS ps (call_id, ts, participant, audio_sum, audio_weight, video_sum, video_weight, score)
           SELECT c, to_timestamp(t / 1000.0), p, a, aw, v, vw, av_score(a, aw, v, vw) FROM added
           ON CONFLICT (call_id, ts, participant) DO UPDATE SET
             audio_sum = ps.audio_sum + excluded.audio_sum, audio_weight = ps.audio_weight + excluded.audio_weight,
             video_sum = ps.video_sum + excluded.video_sum, video_weight = ps.video_weight + excluded.video_weight,
             score = av_score(ps.audio_sum + excluded.audio_sum, ps.audio_weight + excluded.audio_weight,
                              ps.video_sum + excluded.video_sum, ps.video_weight + excluded.video_weight)`,
    values: [
      binaryArray(
        'int8',
        rows.map((r) => r.callDbId),
      ),
      binaryArray(
        'int8',
        rows.map((r) => r.point.streamId),
      ),
      binaryArray(
        'float8',
        rows.map((r) => r.point.ts),
      ),
      binaryArray(
        'float4',
        rows.map((r) => mos(r.point)),
      ),
      rows.map((r) => `{${SCORE_FACTOR_NAMES.map((f) => r.point.lowers[f]?.toFixed(3) ?? 'NULL').join(',')}}`),
      binaryArray(
        'float4',
        rows.map((r) => Math.max(1, r.point.weight)),
      ),
      rows.map((r) => r.point.participant),
      rows.map((r) => r.point.kind),
      binaryArray(
        'float4',
        rows.map((r) => r.point.delayMs ?? null),
      ),
    ],
  });
}

/** A stored window's `lowers` column as the API gives it: the factors that apply, by name. */
export function lowersOf(stored: (number | null)[] | null): Lowers {
  return Object.fromEntries(
    SCORE_FACTOR_NAMES.flatMap((f, k) => (stored?.[k] === null || stored?.[k] === undefined ? [] : [[f, stored[k]]])),
  );
}

/** Window scores with their stream's participant and kind, the SQL that reads them (`FROM stream_score sc` joined to the stream's). */
export const SCORE_SOURCE = `stream_score sc JOIN stream st ON st.id = sc.stream_id JOIN connection cn ON cn.id = st.connection_id JOIN participant pa ON pa.id = cn.participant_id`;

/** Scores and issues as the API gives them, from a call's issues and its streams' window scores. */
export function diagnosisOf(issues: CallIssue[], points: readonly ScorePoint[]): CallDiagnosis {
  const call = callScores(points);
  return {
    issues,
    scores: {
      windowMs: SCORE_WINDOW_MS,
      participants: Object.fromEntries(participantScores(points)),
      call,
      streams: streamScores(points),
      summary: scoreSummary(call.map((c) => ({ mos: c.mean }))),
    },
  };
}

function streamScores(points: readonly ScorePoint[]): CallDiagnosis['scores']['streams'] {
  const streams = new Map<number, CallDiagnosis['scores']['streams'][number]>();
  for (const p of points) {
    const s = streams.get(p.streamId) ?? { streamId: p.streamId, participantId: p.participant, kind: p.kind, windows: [] };
    s.windows.push({
      ts: p.ts,
      mos: p.mos,
      lowers: p.lowers,
      weight: p.weight,
      ...(p.delayMs === undefined ? {} : { delayMs: p.delayMs }),
    });
    streams.set(p.streamId, s);
  }
  return [...streams.values()].map((s) => ({ ...s, windows: s.windows.sort((a, b) => a.ts - b.ts) }));
}

/** An engine issue as the API shows it, once stored (its cause's stored id, `causeId`). */
export const issueToApi = (id: number, callId: string, i: Issue, causeId: number | null): CallIssue => ({
  id,
  callId,
  type: i.type,
  category: i.category,
  severity: i.severity,
  participantId: i.participant,
  streamId: i.streamId,
  connectionId: i.connectionId,
  direction: i.direction,
  start: i.start,
  end: i.end,
  cause: i.cause,
  evidence: i.evidence,
  check: i.check,
  causeId,
});

/** The score of each call whose id matches `ids` (an SQL condition on the call id): the mean over its windows of its participants' (each what it saw and heard). */
const callScoresSql = (ids: string) => `SELECT call_id, avg(window_mean)::float8 AS score FROM (
     SELECT call_id, ts, avg(score) AS window_mean FROM participant_score WHERE call_id = ${ids} GROUP BY call_id, ts
   ) w GROUP BY call_id`;

/**
 * Ends the issues of an ended call that nothing will end: left open by a diagnosis that stopped while they
 * were open and that its successor did not find again (the condition had cleared meanwhile).
 */
export async function endOpenIssues(pool: pg.Pool, projectId: string, callId: string): Promise<void> {
  await pool.query(
    `UPDATE call_issue i SET ended_at = GREATEST(i.started_at, c.ended_at) FROM call c
     WHERE c.project_id = $1 AND c.external_id = $2 AND c.ended_at IS NOT NULL AND i.call_id = c.id AND i.ended_at IS NULL`,
    [projectId, callId],
  );
}

/**
 * Writes an ended call's score on its row (for the calls list's sort and filter), from its stored window
 * scores; the score kept while it was live for the alert rules goes.
 */
export async function storeCallScore(pool: pg.Pool, projectId: string, callId: string): Promise<void> {
  await pool.query(
    `WITH gone AS (DELETE FROM call_score_fold WHERE call_id = (SELECT id FROM call WHERE project_id = $1 AND external_id = $2))
     UPDATE call c SET score = s.score FROM (${callScoresSql('(SELECT id FROM call WHERE project_id = $1 AND external_id = $2)')}) s WHERE c.id = s.call_id`,
    [projectId, callId],
  );
}

/** A call's verdict (good, fair, poor…) from its score and its issues' severities: what every list and summary shows. */
export const verdictOf = (judged: Pick<CallSummary, 'score' | 'issues'>): CallSummary['quality'] =>
  issuesVerdict(judged.score, judged.issues);

/** Calls' scores by call id, read one way or another (`storedScores`, `liveScores`). */
export type ScoresOf = (pool: pg.Pool, callDbIds: string[]) => Promise<{ call_id: string; score: number | null }[]>;

/** Calls' scores from all their windows: for any call. */
const storedScores: ScoresOf = async (pool, ids) =>
  (await pool.query<{ call_id: string; score: number }>(callScoresSql('ANY($1::bigint[])'), [ids])).rows;

/**
 * A window this far behind its call's newest no longer changes (a node taking over a call scores again
 * only the window it was in when it took over).
 */
const SETTLED_BEHIND_S = 30;

/**
 * Live calls' scores so far from their settled windows' running count and sum (each settled window added
 * once, here) and their newest windows: a read as long as a minute of each call, whatever its age. Only
 * the alert rules' round calls it (one node at a time: the additions are not made twice).
 */
export const liveScores: ScoresOf = async (pool, ids) => {
  // One statement. Its SELECT sees the fold as it was before the INSERT in it: the windows folded now
  // are read past the fold's old `through`, with the rest of the call's newest.
  const { rows } = await pool.query<{ call_id: string; score: number | null }>(
    `WITH calls AS (
       SELECT x.id, f.through, (SELECT max(ts) FROM participant_score WHERE call_id = x.id) - make_interval(secs => $2) AS settled
       FROM unnest($1::bigint[]) AS x(id) LEFT JOIN call_score_fold f ON f.call_id = x.id
     ), windows AS (
       SELECT ps.call_id, ps.ts, avg(ps.score) AS mean FROM calls c
       JOIN participant_score ps ON ps.call_id = c.id AND ps.ts > coalesce(c.through, '-infinity') AND ps.ts <= c.settled
       GROUP BY ps.call_id, ps.ts
     ), folded AS (
       INSERT INTO call_score_fold (call_id, windows, total, through) SELECT call_id, count(*), sum(mean), max(ts) FROM windows GROUP BY call_id
       ON CONFLICT (call_id) DO UPDATE SET windows = call_score_fold.windows + excluded.windows, total = call_score_fold.total + excluded.total, through = excluded.through
     )
     SELECT x.id AS call_id, (coalesce(f.total, 0) + coalesce(sum(w.mean), 0)) / nullif(coalesce(f.windows, 0) + count(w.ts), 0) AS score
     FROM unnest($1::bigint[]) AS x(id) LEFT JOIN call_score_fold f ON f.call_id = x.id
     LEFT JOIN LATERAL (
       SELECT ts, avg(score) AS mean FROM participant_score WHERE call_id = x.id AND ts > coalesce(f.through, '-infinity') GROUP BY ts
     ) w ON true
     GROUP BY x.id, f.total, f.windows`,
    [ids, SETTLED_BEHIND_S],
  );
  return rows;
};

/**
 * Calls' scores (the API's summary: mean over windows of the participants' mean) and issues by type, for
 * a list; `scoresOf` reads the scores (live calls' from their running sums: `liveScores`).
 */
export async function callJudgements(
  pool: pg.Pool,
  callDbIds: readonly bigint[],
  scoresOf: ScoresOf = storedScores,
): Promise<Map<string, Pick<CallSummary, 'score' | 'issues'>>> {
  const ids = callDbIds.map(String);
  const [scores, issues] = await Promise.all([
    scoresOf(pool, ids),
    pool.query<{ call_id: string; type: string; severity: CallIssue['severity']; count: number }>(
      // What follows from the app's own limit (its receivers' smaller picture) is the app's choice: information.
      `SELECT call_id, type, (array_agg(severity ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END))[1] AS severity, count(*)::int AS count
       FROM (SELECT i.call_id, i.type, CASE WHEN k.type = $2 THEN 'info' ELSE i.severity END AS severity
             FROM call_issue i LEFT JOIN call_issue k ON k.id = i.caused_by WHERE i.call_id = ANY($1::bigint[])) x
       GROUP BY call_id, type ORDER BY call_id, type`,
      [ids, APP_LIMIT],
    ),
  ]);
  const out = new Map<string, Pick<CallSummary, 'score' | 'issues'>>(ids.map((id) => [id, { score: null, issues: [] }]));
  // The pool may read bigints as numbers: keys are compared as text.
  for (const r of scores) out.get(String(r.call_id))!.score = r.score;
  for (const r of issues.rows) out.get(String(r.call_id))!.issues.push({ type: r.type, severity: r.severity, count: r.count });
  return out;
}

/** The project's calls that had an issue of this type. */
export async function callsWithIssue(pool: pg.Pool, projectId: string, type: string): Promise<bigint[]> {
  const { rows } = await pool.query<{ call_id: string }>('SELECT DISTINCT call_id FROM call_issue WHERE project_id = $1 AND type = $2', [
    projectId,
    type,
  ]);
  return rows.map((r) => BigInt(r.call_id));
}
