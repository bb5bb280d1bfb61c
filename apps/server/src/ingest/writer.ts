import { CONNECTION_FIELDS, type DecodedRow, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';

export interface EventInsert {
  connectionDbId: number | null;
  seq: number;
  ts: number;
  type: string;
  detail: string | null;
}

export interface BatchWrite {
  projectId: string;
  callDbId: number;
  participantDbId: number;
  session: string;
  /** Rows with `index` already replaced by the stream's / connection's database id. */
  streamRows: DecodedRow[];
  connectionRows: DecodedRow[];
  events: EventInsert[];
  /** The session said goodbye: the participant has left. */
  left: boolean;
  metadata: Record<string, unknown> | null;
}

export interface BatchResult {
  /** Rows newly stored; a resent batch stores 0. */
  stored: number;
}

const columns = (specs: readonly FieldSpec[]) => specs.map((s) => s.column).join(', ');
const arrays = (specs: readonly FieldSpec[], first: number) =>
  specs.map((s, k) => `$${first + k}::${s.integer ? 'int' : 'real'}[]`).join(', ');

const S = STREAM_FIELDS.length;
const C = CONNECTION_FIELDS.length;
// Parameter layout: $1..$3 stream head, then stream fields; then connection head and fields; then
// events; then the participant/call scalars.
const sBase = 1;
const cBase = sBase + 3 + S;
const eBase = cBase + 3 + C;
const pBase = eBase + 5;

/**
 * The whole batch in one statement, so one round trip and one commit: samples and events are inserted
 * (a resent row conflicts on its identity and is skipped), and the participant's and call's last-seen
 * times and running aggregates advance by what was actually inserted.
 */
const BATCH_SQL = `
WITH s AS (
  INSERT INTO stream_sample (stream_id, ts, seq, ${columns(STREAM_FIELDS)})
  SELECT id, to_timestamp(t / 1000.0), q, ${STREAM_FIELDS.map((_, k) => `f${k}`).join(', ')}
  FROM unnest($${sBase}::bigint[], $${sBase + 1}::float8[], $${sBase + 2}::int[], ${arrays(STREAM_FIELDS, sBase + 3)})
    AS x(id, t, q, ${STREAM_FIELDS.map((_, k) => `f${k}`).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING stream_id, rtt_ms, loss_pct, fps
), c AS (
  INSERT INTO connection_sample (connection_id, ts, seq, ${columns(CONNECTION_FIELDS)})
  SELECT id, to_timestamp(t / 1000.0), q, ${CONNECTION_FIELDS.map((_, k) => `f${k}`).join(', ')}
  FROM unnest($${cBase}::bigint[], $${cBase + 1}::float8[], $${cBase + 2}::int[], ${arrays(CONNECTION_FIELDS, cBase + 3)})
    AS x(id, t, q, ${CONNECTION_FIELDS.map((_, k) => `f${k}`).join(', ')})
  ON CONFLICT DO NOTHING
  RETURNING 1
), e AS (
  INSERT INTO call_event (project_id, call_id, participant_id, session, connection_id, seq, ts, type, detail)
  SELECT $${pBase}, $${pBase + 1}, $${pBase + 2}, $${pBase + 3}, cid, q, to_timestamp(t / 1000.0), ty, d
  FROM unnest($${eBase}::bigint[], $${eBase + 1}::int[], $${eBase + 2}::float8[], $${eBase + 3}::text[], $${eBase + 4}::text[])
    AS x(cid, q, t, ty, d)
  ON CONFLICT DO NOTHING
  RETURNING 1
), agg AS (
  SELECT
    coalesce(sum(s.rtt_ms) FILTER (WHERE st.direction = 'out'), 0) AS rtt_sum,
    count(s.rtt_ms) FILTER (WHERE st.direction = 'out') AS rtt_count,
    coalesce(sum(s.loss_pct) FILTER (WHERE st.direction = 'in'), 0) AS loss_sum,
    count(s.loss_pct) FILTER (WHERE st.direction = 'in') AS loss_count,
    coalesce(sum(s.fps) FILTER (WHERE st.direction = 'in' AND st.kind = 'video'), 0) AS fps_sum,
    count(s.fps) FILTER (WHERE st.direction = 'in' AND st.kind = 'video') AS fps_count
  FROM s JOIN stream st ON st.id = s.stream_id
), p AS (
  UPDATE participant SET
    last_seen_at = GREATEST(last_seen_at, to_timestamp($${pBase + 4} / 1000.0)),
    left_at = CASE WHEN $${pBase + 5}::boolean THEN now() ELSE NULL END,
    metadata = CASE WHEN $${pBase + 6}::jsonb IS NULL THEN metadata ELSE metadata || $${pBase + 6}::jsonb END
  WHERE id = $${pBase + 2}
  RETURNING 1
), k AS (
  UPDATE call SET
    last_seen_at = GREATEST(call.last_seen_at, to_timestamp($${pBase + 4} / 1000.0)),
    ended_at = NULL,
    rtt_sum = call.rtt_sum + agg.rtt_sum, rtt_count = call.rtt_count + agg.rtt_count,
    loss_sum = call.loss_sum + agg.loss_sum, loss_count = call.loss_count + agg.loss_count,
    fps_sum = call.fps_sum + agg.fps_sum, fps_count = call.fps_count + agg.fps_count
  FROM agg
  WHERE call.id = $${pBase + 1}
  RETURNING 1
)
SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM c) AS stored,
       (SELECT count(*) FROM p) + (SELECT count(*) FROM k) AS touched`;

export async function writeBatch(pool: pg.Pool, w: BatchWrite): Promise<BatchResult> {
  let lastTs = 0;
  for (const r of w.streamRows) lastTs = Math.max(lastTs, r.ts);
  for (const r of w.connectionRows) lastTs = Math.max(lastTs, r.ts);
  for (const e of w.events) lastTs = Math.max(lastTs, e.ts);
  const params: unknown[] = [
    ...rowArrays(w.streamRows, S),
    ...rowArrays(w.connectionRows, C),
    w.events.map((e) => e.connectionDbId),
    w.events.map((e) => e.seq),
    w.events.map((e) => e.ts),
    w.events.map((e) => e.type),
    w.events.map((e) => e.detail),
    w.projectId,
    w.callDbId,
    w.participantDbId,
    w.session,
    lastTs || Date.now(),
    w.left,
    w.metadata === null ? null : JSON.stringify(w.metadata),
  ];
  const { rows } = await pool.query<{ stored: number }>(BATCH_SQL, params);
  return { stored: rows[0]?.stored ?? 0 };
}

/** Column-major arrays for unnest: ids, times, seqs, then one array per field. */
function rowArrays(rows: readonly DecodedRow[], fields: number): unknown[] {
  const cols: (number | null)[][] = Array.from({ length: fields }, () => new Array<number | null>(rows.length));
  const ids = new Array<number>(rows.length);
  const ts = new Array<number>(rows.length);
  const seqs = new Array<number>(rows.length);
  rows.forEach((r, i) => {
    ids[i] = r.index;
    ts[i] = r.ts;
    seqs[i] = r.seq;
    for (let k = 0; k < fields; k++) (cols[k] as (number | null)[])[i] = r.values[k] ?? null;
  });
  return [ids, ts, seqs, ...cols];
}
