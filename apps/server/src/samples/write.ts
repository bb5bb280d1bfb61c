import type { MeanRoles } from '@rtcscope/metrics';
import {
  type ConnectionInfo,
  CONNECTION_FIELDS,
  type DecodedRow,
  type FieldSpec,
  type IngestHandshake,
  STREAM_FIELDS,
  type StreamInfo,
} from '@rtcscope/protocol';
import type pg from 'pg';
import { BinaryArray, binaryArray } from '../db/binary-array.js';
import { compactionHorizon } from './partitions.js';
import { pointsSql } from './points.js';
import { mergeMetadata } from './metadata.js';

export interface EventInsert {
  connectionDbId: number | null;
  seq: number;
  ts: number;
  type: string;
  detail: string | null;
}

/** Which of a stream's values feed its call's running means (`meanRoles`, the one definition). */
export interface StreamRole extends MeanRoles {
  id: number;
}

export interface BatchWrite {
  projectId: string;
  callDbId: number;
  participantDbId: number;
  session: string;
  /** Rows with `index` already replaced by the stream's / connection's database id. */
  streamRows: DecodedRow[];
  connectionRows: DecodedRow[];
  streamRoles: StreamRole[];
  events: EventInsert[];
  /** The session said goodbye: the participant has left. */
  left: boolean;
  /** The batch may have been stored before (a session's first batches resend what was not acknowledged). */
  mayRepeat: boolean;
  metadata: Record<string, unknown> | null;
}

export interface BatchResult {
  /** Rows newly stored; a resent batch stores 0. */
  stored: number;
}

/** What one committed batch added, for those that follow the calls as they run (the live fan-out, the diagnosis). */
export interface Committed extends BatchResult {
  callCreated: boolean;
  participantJoined: boolean;
  left: boolean;
  newConnections: Omit<ConnectionInfo, 'streams' | 'media'>[];
  newStreams: (StreamInfo & { connectionId: number })[];
  /** The batch's rows, `index` replaced by the stream's / connection's database id. */
  streamRows: DecodedRow[];
  connectionRows: DecodedRow[];
  events: (EventInsert & { connectionDbId: number | null })[];
}

/** Whose a committed batch is: the SDK socket that sent it (an ingest session is one). */
export interface BatchOrigin {
  readonly projectId: string;
  readonly handshake: IngestHandshake;
  /** The call's database id, once the socket's first batch registered its participant. */
  readonly callDbId: number | null;
}

const fieldList = (specs: readonly FieldSpec[]) => specs.map((_, k) => `f${k}`).join(', ');
const columns = (specs: readonly FieldSpec[]) => specs.map((s) => s.column).join(', ');
const arrays = (specs: readonly FieldSpec[], first: number) =>
  specs.map((s, k) => `$${first + k}::${s.integer ? 'int' : 'real'}[]`).join(', ');

const S = STREAM_FIELDS.length;
const C = CONNECTION_FIELDS.length;
// Parameter layout, every parameter an array: stream rows (id, ts, seq, fields), connection rows,
// events (9), stream roles (5), participant updates (4), call updates (2).
const sBase = 1;
const cBase = sBase + 3 + S;
const eBase = cBase + 3 + C;
const rBase = eBase + 9;
const pBase = rBase + 5;
const kBase = pBase + 4;

/**
 * A call's last-seen time moves in steps of this many seconds. It is in an index (the calls list's),
 * so an update that changes it writes new entries into every index of the call table and leaves the
 * old row version dead; one that leaves it alone is a heap-only update. Moving it on every batch made
 * 99.7 % of a soak's call updates non-HOT (119,000 dead rows for 2,000 calls within 7 minutes). The
 * participants' times stay exact, and a call that ends takes its exact last time from them.
 */
const CALL_SEEN_STEP_S = 10;

/**
 * How a group's samples are inserted. `new`: plainly, the steady state, where a repeated row fails the
 * statement (it is then run again as `repeated`); skipping conflicts on every row took a fifth of the
 * database's CPU. `repeated`: rows already stored are skipped. `late`: rows of a day that may have
 * been compacted already are looked for in its blocks too; only groups holding such late rows pay for
 * that lookup (on every group it took the database's CPU from 77 % to 100 % at a third of the load).
 */
type Mode = 'new' | 'repeated' | 'late';

const skipStored = (kind: 'stream' | 'connection', mode: Mode) => {
  if (mode === 'new') return '';
  const inBlocks = `WHERE NOT EXISTS (SELECT 1 FROM ${pointsSql(kind, [], 'ARRAY[x.id]', 'to_timestamp(x.t / 1000.0)', 'to_timestamp(x.t / 1000.0)', true)})`;
  return `${mode === 'late' ? inBlocks : ''}
  ON CONFLICT DO NOTHING`;
};

/**
 * A group of batches (from any number of sessions) in one statement, so one round trip and one commit:
 * samples and events are inserted (a resent row conflicts on its identity, or is found in a block, and
 * is skipped), and participants' and calls' last-seen times and running means advance by what was
 * actually inserted.
 */
const groupSql = (mode: Mode) => `
WITH s AS (
  INSERT INTO stream_sample (stream_id, ts, seq, ${columns(STREAM_FIELDS)})
  SELECT id, to_timestamp(t / 1000.0), q, ${fieldList(STREAM_FIELDS)}
  FROM unnest($${sBase}::bigint[], $${sBase + 1}::float8[], $${sBase + 2}::int[], ${arrays(STREAM_FIELDS, sBase + 3)})
    AS x(id, t, q, ${fieldList(STREAM_FIELDS)})
  ${skipStored('stream', mode)}
  RETURNING stream_id, rtt_ms, loss_pct, fps
), c AS (
  INSERT INTO connection_sample (connection_id, ts, seq, ${columns(CONNECTION_FIELDS)})
  SELECT id, to_timestamp(t / 1000.0), q, ${fieldList(CONNECTION_FIELDS)}
  FROM unnest($${cBase}::bigint[], $${cBase + 1}::float8[], $${cBase + 2}::int[], ${arrays(CONNECTION_FIELDS, cBase + 3)})
    AS x(id, t, q, ${fieldList(CONNECTION_FIELDS)})
  ${skipStored('connection', mode)}
  RETURNING connection_id
), e AS (
  INSERT INTO call_event (project_id, call_id, participant_id, session, connection_id, seq, ts, type, detail)
  SELECT project_id, call_id, participant_id, session, connection_id, seq, to_timestamp(t / 1000.0), type, detail
  FROM unnest($${eBase}::uuid[], $${eBase + 1}::bigint[], $${eBase + 2}::bigint[], $${eBase + 3}::text[],
    $${eBase + 4}::bigint[], $${eBase + 5}::int[], $${eBase + 6}::float8[], $${eBase + 7}::text[], $${eBase + 8}::text[])
    AS x(project_id, call_id, participant_id, session, connection_id, seq, t, type, detail)
  ON CONFLICT DO NOTHING
  RETURNING 1
), roles AS (
  SELECT * FROM unnest($${rBase}::bigint[], $${rBase + 1}::bigint[], $${rBase + 2}::boolean[], $${rBase + 3}::boolean[], $${rBase + 4}::boolean[])
    AS r(stream_id, call_id, rtt, loss, fps)
), agg AS (
  SELECT roles.call_id,
    coalesce(sum(s.rtt_ms) FILTER (WHERE roles.rtt), 0) AS rtt_sum, count(s.rtt_ms) FILTER (WHERE roles.rtt) AS rtt_count,
    coalesce(sum(s.loss_pct) FILTER (WHERE roles.loss), 0) AS loss_sum, count(s.loss_pct) FILTER (WHERE roles.loss) AS loss_count,
    coalesce(sum(s.fps) FILTER (WHERE roles.fps), 0) AS fps_sum, count(s.fps) FILTER (WHERE roles.fps) AS fps_count
  FROM s JOIN roles ON roles.stream_id = s.stream_id
  GROUP BY roles.call_id
), p AS (
  UPDATE participant SET
    -- Never past the server's clock: a client's clock ahead (up to the window's 10 minutes) must not keep a call live without it.
    last_seen_at = GREATEST(participant.last_seen_at, LEAST(to_timestamp(u.t / 1000.0), now())),
    left_at = CASE WHEN u.gone THEN now() ELSE NULL END,
    metadata = CASE WHEN u.meta IS NULL THEN participant.metadata ELSE ${mergeMetadata('participant.metadata', 'u.meta', 'participant')} END
  FROM unnest($${pBase}::bigint[], $${pBase + 1}::float8[], $${pBase + 2}::boolean[], $${pBase + 3}::jsonb[]) AS u(id, t, gone, meta)
  WHERE participant.id = u.id
  RETURNING 1
), k AS (
  UPDATE call SET
    last_seen_at = CASE WHEN LEAST(to_timestamp(u.t / 1000.0), now()) > call.last_seen_at + interval '${CALL_SEEN_STEP_S} seconds'
                        THEN LEAST(to_timestamp(u.t / 1000.0), now()) ELSE call.last_seen_at END,
    ended_at = NULL,
    rolled_up_at = NULL,
    rtt_sum = call.rtt_sum + coalesce(agg.rtt_sum, 0), rtt_count = call.rtt_count + coalesce(agg.rtt_count, 0),
    loss_sum = call.loss_sum + coalesce(agg.loss_sum, 0), loss_count = call.loss_count + coalesce(agg.loss_count, 0),
    fps_sum = call.fps_sum + coalesce(agg.fps_sum, 0), fps_count = call.fps_count + coalesce(agg.fps_count, 0)
  FROM (SELECT id, max(t) AS t FROM unnest($${kBase}::bigint[], $${kBase + 1}::float8[]) AS x(id, t) GROUP BY id) u
  LEFT JOIN agg ON agg.call_id = u.id
  WHERE call.id = u.id
  RETURNING 1
)
${
  // A statement that inserts plainly either stores every row or fails: only the others count per id.
  mode === 'new'
    ? ''
    : `SELECT 's' AS kind, stream_id AS id, count(*)::int AS n FROM s GROUP BY stream_id
UNION ALL
SELECT 'c', connection_id, count(*)::int FROM c GROUP BY connection_id
UNION ALL`
}
SELECT 'x' AS kind, (SELECT count(*) FROM e) + (SELECT count(*) FROM p) + (SELECT count(*) FROM k) AS id, 0 AS n`;

const GROUP_SQL: Record<Mode, string> = { new: groupSql('new'), repeated: groupSql('repeated'), late: groupSql('late') };

/** Writes a group of batches in one statement and tells each batch how many of its rows were new. */
export async function writeGroup(pool: pg.Pool, writes: readonly BatchWrite[]): Promise<BatchResult[]> {
  const streamRows = writes.flatMap((w) => w.streamRows);
  const connectionRows = writes.flatMap((w) => w.connectionRows);
  const events = writes.flatMap((w) => w.events.map((e) => ({ w, e })));
  const roles = rolesOf(writes);
  const lastTs = binaryArray('float8', writes.map(lastTime));
  const params: unknown[] = [
    ...rowArrays(streamRows, STREAM_FIELDS),
    ...rowArrays(connectionRows, CONNECTION_FIELDS),
    events.map(({ w }) => w.projectId),
    events.map(({ w }) => w.callDbId),
    events.map(({ w }) => w.participantDbId),
    events.map(({ w }) => w.session),
    events.map(({ e }) => e.connectionDbId),
    events.map(({ e }) => e.seq),
    events.map(({ e }) => e.ts),
    events.map(({ e }) => e.type),
    events.map(({ e }) => e.detail),
    ...roles,
    binaryArray(
      'int8',
      writes.map((w) => w.participantDbId),
    ),
    lastTs,
    binaryArray(
      'bool',
      writes.map((w) => w.left),
    ),
    writes.map((w) => (w.metadata === null ? null : JSON.stringify(w.metadata))),
    binaryArray(
      'int8',
      writes.map((w) => w.callDbId),
    ),
    lastTs,
  ];
  const horizon = compactionHorizon(Date.now());
  const late = streamRows.some((r) => r.ts < horizon) || connectionRows.some((r) => r.ts < horizon);
  // Named, so each pooled connection plans the statement once: planning it took about as much of the
  // database's CPU as inserting the rows of a 15-batch group.
  const run = (mode: Mode) =>
    pool.query<{ kind: string; id: number; n: number }>({ name: `ingest-group-${mode}`, text: GROUP_SQL[mode], values: params });
  let mode: Mode = late ? 'late' : writes.some((w) => w.mayRepeat) ? 'repeated' : 'new';
  const { rows } = await run(mode).catch((err: unknown) => {
    const code = (err as { code?: string }).code;
    // A deadlock with a partition being made (its parent locked whole) ended this statement, wholly
    // rolled back: it goes again once.
    if (code === DEADLOCK) return run(mode);
    if (mode !== 'new' || code !== UNIQUE_VIOLATION) throw err;
    mode = 'repeated';
    return run(mode);
  });
  if (mode === 'new') return writes.map((w) => ({ stored: w.streamRows.length + w.connectionRows.length }));
  const stored = { s: new Map<number, number>(), c: new Map<number, number>() };
  for (const r of rows) if (r.kind === 's' || r.kind === 'c') stored[r.kind].set(r.id, r.n);
  // A stream or connection belongs to one session, and a group holds one batch of each session (the
  // group committer sees to it): each id's count belongs to exactly one batch of the group.
  return writes.map((w) => ({
    stored:
      sum(new Set(w.streamRows.map((r) => r.index)), (id) => stored.s.get(id) ?? 0) +
      sum(new Set(w.connectionRows.map((r) => r.index)), (id) => stored.c.get(id) ?? 0),
  }));
}

const UNIQUE_VIOLATION = '23505';
const DEADLOCK = '40P01';

/** The roles' columns (stream id, call id, rtt, loss, fps) as binary arrays. */
function rolesOf(writes: readonly BatchWrite[]): Buffer[] {
  const n = sum(writes, (w) => w.streamRoles.length);
  const cols = [
    new BinaryArray('int8', n),
    new BinaryArray('int8', n),
    new BinaryArray('bool', n),
    new BinaryArray('bool', n),
    new BinaryArray('bool', n),
  ] as const;
  for (const w of writes) {
    for (const r of w.streamRoles) {
      cols[0].push(r.id);
      cols[1].push(w.callDbId);
      cols[2].push(r.rtt);
      cols[3].push(r.loss);
      cols[4].push(r.fps);
    }
  }
  return cols.map((c) => c.toBuffer());
}

/** The time a batch's participant and call were last heard of: its latest sample or event. */
function lastTime(w: BatchWrite): number {
  let last = 0;
  for (const r of w.streamRows) last = Math.max(last, r.ts);
  for (const r of w.connectionRows) last = Math.max(last, r.ts);
  for (const e of w.events) last = Math.max(last, e.ts);
  return last || Date.now();
}

function sum<T>(items: Iterable<T>, f: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += f(item);
  return total;
}

/**
 * Column-major binary arrays for unnest (ids, times, seqs, then one per field). Text literals cost the
 * server a number-to-string per value and the database a parse per value; pg's generic array encoding
 * (a quoted string per element) cost more still.
 */
function rowArrays(rows: readonly DecodedRow[], specs: readonly FieldSpec[]): Buffer[] {
  const n = rows.length;
  const ids = new BinaryArray('int8', n);
  const times = new BinaryArray('float8', n);
  const seqs = new BinaryArray('int4', n);
  const fields = specs.map((spec) => new BinaryArray(spec.integer ? 'int4' : 'float4', n));
  for (const r of rows) {
    ids.push(r.index);
    times.push(r.ts);
    seqs.push(r.seq);
    for (let k = 0; k < fields.length; k++) fields[k]!.push(r.values[k]);
  }
  return [ids, times, seqs, ...fields].map((c) => c.toBuffer());
}
