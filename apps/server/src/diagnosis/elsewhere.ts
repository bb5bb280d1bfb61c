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

/** The samples of these streams from `since` (epoch ms) on, as stored by the nodes that took them. */
export async function samplesElsewhere(pool: pg.Pool, streamIds: readonly number[], since: number): Promise<Sample[]> {
  if (!streamIds.length) return [];
  const now = Date.now();
  const series = await readSeries(
    { pool },
    { from: since, to: now + 60_000, rolledUp: false, streamIds: [...streamIds], connectionIds: [] },
    10_000,
    STREAM_FIELDS,
  );
  return series.streams;
}
