import type { ConnectionDescriptor, Metadata, StreamDescriptor } from '@rtcscope/protocol';
import type pg from 'pg';

export interface ParticipantIdentity {
  projectId: string;
  callId: string;
  participantId: string;
}

export interface Registered {
  callDbId: number;
  participantDbId: number;
  callCreated: boolean;
}

/**
 * Upserts the relational rows a session writes under. Runs on a session's first batch and when it
 * declares new connections or streams; steady-state batches skip it.
 */
export async function registerParticipant(pool: pg.Pool, id: ParticipantIdentity, firstTs: number, metadata: Metadata): Promise<Registered> {
  const { rows } = await pool.query<{ id: number; call_id: number; call_created: boolean }>(
    `WITH c AS (
       INSERT INTO call (project_id, external_id, started_at, last_seen_at, metadata)
       VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($3 / 1000.0), $4::jsonb)
       ON CONFLICT (project_id, external_id) DO UPDATE
         SET started_at = LEAST(call.started_at, EXCLUDED.started_at), ended_at = NULL, rolled_up_at = NULL,
             metadata = call.metadata || EXCLUDED.metadata
       RETURNING id, (xmax = 0) AS created)
     INSERT INTO participant (project_id, call_id, external_id, joined_at, last_seen_at, metadata)
     SELECT $1, c.id, $5, to_timestamp($3 / 1000.0), to_timestamp($3 / 1000.0), $4::jsonb FROM c
     ON CONFLICT (call_id, external_id) DO UPDATE
       SET left_at = NULL, metadata = participant.metadata || EXCLUDED.metadata
     RETURNING id, call_id, (SELECT created FROM c) AS call_created`,
    [id.projectId, id.callId, firstTs, JSON.stringify(metadata), id.participantId],
  );
  const row = rows[0];
  if (!row) throw new Error('participant upsert returned nothing');
  return { callDbId: row.call_id, participantDbId: row.id, callCreated: row.call_created };
}

/** A new id in the project's ($1) retention tier: its samples land in that tier's partitions. */
const TIERED_ID = (table: 'stream' | 'connection') =>
  `(SELECT rtcscope_id_base(retention_days) FROM project WHERE id = $1) + nextval('${table}_id_seq')`;

export async function registerConnections(
  pool: pg.Pool,
  projectId: string,
  participantDbId: number,
  session: string,
  conns: readonly ConnectionDescriptor[],
): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ id: number; key: string }>(
    `INSERT INTO connection (id, project_id, participant_id, session, key,
       local_candidate_type, local_protocol, remote_candidate_type, remote_protocol)
     SELECT ${TIERED_ID('connection')}, $1, $2, $3, * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
     ON CONFLICT (participant_id, session, key) DO UPDATE SET
       local_candidate_type = COALESCE(EXCLUDED.local_candidate_type, connection.local_candidate_type),
       local_protocol = COALESCE(EXCLUDED.local_protocol, connection.local_protocol),
       remote_candidate_type = COALESCE(EXCLUDED.remote_candidate_type, connection.remote_candidate_type),
       remote_protocol = COALESCE(EXCLUDED.remote_protocol, connection.remote_protocol)
     RETURNING id, key`,
    [
      projectId,
      participantDbId,
      session,
      conns.map((c) => c.key),
      conns.map((c) => c.localCandidateType ?? null),
      conns.map((c) => c.localProtocol ?? null),
      conns.map((c) => c.remoteCandidateType ?? null),
      conns.map((c) => c.remoteProtocol ?? null),
    ],
  );
  const byKey = new Map(rows.map((r) => [r.key, r.id]));
  return new Map(conns.map((c) => [c.i, byKey.get(c.key) ?? -1]));
}

export async function registerStreams(
  pool: pg.Pool,
  projectId: string,
  streams: readonly (StreamDescriptor & { connectionDbId: number })[],
): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ id: number; connection_id: number; direction: string; kind: string; ssrc: number }>(
    `INSERT INTO stream (id, project_id, connection_id, direction, kind, ssrc, rid, track_id, codec, implementation)
     SELECT ${TIERED_ID('stream')}, $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])
     ON CONFLICT (connection_id, direction, kind, ssrc) DO UPDATE SET
       rid = COALESCE(EXCLUDED.rid, stream.rid),
       track_id = COALESCE(EXCLUDED.track_id, stream.track_id),
       codec = COALESCE(EXCLUDED.codec, stream.codec),
       implementation = COALESCE(EXCLUDED.implementation, stream.implementation)
     RETURNING id, connection_id, direction, kind, ssrc`,
    [
      projectId,
      streams.map((s) => s.connectionDbId),
      streams.map((s) => s.direction),
      streams.map((s) => s.kind),
      streams.map((s) => s.ssrc),
      streams.map((s) => s.rid ?? null),
      streams.map((s) => s.trackId ?? null),
      streams.map((s) => s.codec ?? null),
      streams.map((s) => s.implementation ?? null),
    ],
  );
  const identity = (c: number, d: string, k: string, ssrc: number) => `${c}|${d}|${k}|${ssrc}`;
  const byIdentity = new Map(rows.map((r) => [identity(r.connection_id, r.direction, r.kind, r.ssrc), r.id]));
  return new Map(streams.map((s) => [s.i, byIdentity.get(identity(s.connectionDbId, s.direction, s.kind, s.ssrc)) ?? -1]));
}
