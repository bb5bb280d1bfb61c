import type { Sample, StreamMeta } from '@rtcscope/diagnosis';
import { STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { readSeries } from '../samples/series.js';

/** A call as this node holds it: whose batches come here. */
export interface HeldCall {
  callDbId: number;
  local: ReadonlySet<string>;
}

/** A stream of a participant whose batches go to another node, and whether that participant has left. */
export interface StreamElsewhere extends StreamMeta {
  callDbId: number;
  left: boolean;
}

/**
 * The streams of the held calls' other participants: those whose batches go to other server nodes (or
 * have not come here yet), read from what those nodes stored.
 */
export async function streamsElsewhere(pool: pg.Pool, calls: readonly HeldCall[]): Promise<StreamElsewhere[]> {
  if (!calls.length) return [];
  const local = calls.flatMap((c) => [...c.local].map((p) => [c.callDbId, p] as const));
  const { rows } = await pool.query<{
    call_id: string;
    participant: string;
    left: boolean;
    id: string;
    connection_id: string;
    direction: 'in' | 'out';
    kind: 'audio' | 'video';
    ssrc: string;
    track_id: string | null;
    codec: string | null;
    content_type: string | null;
  }>(
    `SELECT pa.call_id, pa.external_id AS participant, pa.left_at IS NOT NULL AS left, s.id, s.connection_id, s.direction, s.kind, s.ssrc, s.track_id, s.codec, s.content_type
     FROM participant pa JOIN connection c ON c.participant_id = pa.id JOIN stream s ON s.connection_id = c.id
     WHERE pa.call_id = ANY($1::bigint[]) AND (pa.call_id, pa.external_id) NOT IN (SELECT * FROM unnest($2::bigint[], $3::text[]))`,
    [calls.map((c) => c.callDbId), local.map(([call]) => call), local.map(([, p]) => p)],
  );
  return rows.map((r) => ({
    callDbId: Number(r.call_id),
    participant: r.participant,
    left: r.left,
    id: Number(r.id),
    connectionId: Number(r.connection_id),
    direction: r.direction,
    kind: r.kind,
    ssrc: Number(r.ssrc),
    trackId: r.track_id,
    codec: r.codec,
    contentType: r.content_type === 'screenshare' ? 'screenshare' : null,
  }));
}

/**
 * How far back other nodes' samples are read: first, and at most (a stream gone quiet — a track
 * stopped, a participant away — must not make every read go back to its last sample; what another node
 * stores later than this is not read).
 */
export const LOOK_BACK_MS = 15_000;
/** Streams further behind than this are read apart from the rest, so that the rest's read stays a few seconds long. */
const CAUGHT_UP_MS = 3000;

/**
 * The reads that bring each stream's samples after its newest read (`latest`, epoch ms, by stream id) at
 * `now`: the streams caught up in one, those behind (up to `LOOK_BACK_MS`) in another.
 */
export function readRanges(latest: ReadonlyMap<number, number>, now: number): { ids: number[]; since: number }[] {
  const caughtUp = { ids: [] as number[], since: Infinity };
  const behind = { ids: [] as number[], since: Infinity };
  for (const [id, last] of latest) {
    const from = Math.max(last, now - LOOK_BACK_MS);
    const range = from >= now - CAUGHT_UP_MS ? caughtUp : behind;
    range.ids.push(id);
    range.since = Math.min(range.since, from);
  }
  return [caughtUp, behind].filter((r) => r.ids.length);
}

/** The samples of these streams after each one's newest read (`latest`), as stored by the nodes that took them. */
export async function samplesElsewhere(pool: pg.Pool, latest: ReadonlyMap<number, number>, now: number): Promise<Sample[]> {
  const found = await Promise.all(
    readRanges(latest, now).map(
      async (r) =>
        (
          await readSeries(
            { pool },
            { from: r.since + 1, to: now + 60_000, rolledUp: false, streamIds: r.ids, connectionIds: [] },
            10_000,
            STREAM_FIELDS,
          )
        ).streams,
    ),
  );
  return found.flat();
}
