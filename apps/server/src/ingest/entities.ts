import type { ConnectionDescriptor, Metadata, StreamDescriptor } from '@rtcscope/protocol';
import type pg from 'pg';
import { mergeMetadata } from '../samples/metadata.js';
import type { ClientInfo } from '../clients/client.js';
import { Coalescer } from './coalescer.js';
import { ID_TIER_SHIFT, IMPORTED_TIER } from '../samples/retention-tiers.js';

export interface ParticipantRegistration {
  projectId: string;
  callId: string;
  participantId: string;
  /** The session's first sample time: the call's start if it is new. */
  firstTs: number;
  metadata: Metadata;
  /** What the participant's client is (its browser, OS, device, SDK), kept on the participant. */
  client: ClientInfo;
  /** A pre-call test's call is of its own kind; a call's kind is set when it is made. */
  kind: 'call' | 'precall';
}

export interface Registered {
  callDbId: number;
  participantDbId: number;
  callCreated: boolean;
}

export interface ConnectionRegistration {
  projectId: string;
  participantDbId: number;
  session: string;
  conns: readonly ConnectionDescriptor[];
}

export interface StreamRegistration {
  projectId: string;
  streams: readonly (StreamDescriptor & { connectionDbId: number })[];
}

/**
 * Upserts the relational rows sessions write under: on a session's first batch, and when it declares
 * new connections or streams (steady-state batches skip it). Sessions that start together (a reconnect
 * storm after a node dies, many calls starting at the hour) register in shared statements, one kind in
 * flight at a time, instead of three statements and commits each.
 */
export class Registrar {
  private readonly participants: Coalescer<ParticipantRegistration, Registered | null>;
  private readonly connections: Coalescer<ConnectionRegistration, Map<number, number>>;
  private readonly streams: Coalescer<StreamRegistration, Map<number, number>>;

  constructor(pool: pg.Pool) {
    this.participants = new Coalescer((regs) => registerParticipants(pool, regs));
    this.connections = new Coalescer((regs) => registerConnections(pool, regs));
    this.streams = new Coalescer((regs) => registerStreams(pool, regs));
  }

  /** Null when the call id is held by a call of another kind: nothing was written. */
  participant(reg: ParticipantRegistration): Promise<Registered | null> {
    return this.participants.submit(reg);
  }

  /** Maps each connection's session index to its database id. */
  connectionIds(reg: ConnectionRegistration): Promise<Map<number, number>> {
    return this.connections.submit(reg);
  }

  /** Maps each stream's session index to its database id. */
  streamIds(reg: StreamRegistration): Promise<Map<number, number>> {
    return this.streams.submit(reg);
  }
}

/**
 * Calls and participants of many sessions in one statement. Several sessions of one participant or
 * call may be in it: each call and participant is upserted once, with the earliest time and all the
 * sessions' metadata.
 */
async function registerParticipants(pool: pg.Pool, regs: readonly ParticipantRegistration[]): Promise<(Registered | null)[]> {
  const { rows } = await pool.query<{ k: number; id: number; call_id: number; call_created: boolean }>(
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::float8[], $5::jsonb[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[]) WITH ORDINALITY
         AS x(project_id, call_ext, participant_ext, t, meta, browser, browser_version, os, device_type, sdk_version, country, kind, k)
     ), m AS (
       SELECT x.project_id, x.call_ext, x.participant_ext, min(x.t) AS t,
              coalesce(jsonb_object_agg(j.key, j.value) FILTER (WHERE j.key IS NOT NULL), '{}') AS meta,
              max(x.browser) AS browser, max(x.browser_version) AS browser_version, max(x.os) AS os,
              max(x.device_type) AS device_type, max(x.sdk_version) AS sdk_version, max(x.country) AS country,
              max(x.kind) AS kind
       FROM x LEFT JOIN LATERAL jsonb_each(x.meta) j ON true
       GROUP BY x.project_id, x.call_ext, x.participant_ext
     ), c AS (
       INSERT INTO call (project_id, external_id, started_at, last_seen_at, kind, metadata)
       SELECT m.project_id, m.call_ext, to_timestamp(min(m.t) / 1000.0), LEAST(to_timestamp(min(m.t) / 1000.0), now()), max(m.kind),
              ${mergeMetadata("'{}'", "coalesce(jsonb_object_agg(j.key, j.value) FILTER (WHERE j.key IS NOT NULL), '{}')", 'call')}
       FROM m LEFT JOIN LATERAL jsonb_each(m.meta) j ON true
       GROUP BY m.project_id, m.call_ext
       ON CONFLICT (project_id, external_id) DO UPDATE
         SET started_at = LEAST(call.started_at, EXCLUDED.started_at), ended_at = NULL, rolled_up_at = NULL,
             metadata = ${mergeMetadata('call.metadata', 'EXCLUDED.metadata', 'call')}
         -- A session of another kind neither reopens nor joins the call that holds its id.
         WHERE call.kind = EXCLUDED.kind
       RETURNING id, project_id, external_id, (xmax = 0) AS created
     ), p AS (
       INSERT INTO participant (project_id, call_id, external_id, joined_at, last_seen_at, metadata, browser, browser_version, os, device_type, sdk_version, country)
       SELECT m.project_id, c.id, m.participant_ext, to_timestamp(m.t / 1000.0), LEAST(to_timestamp(m.t / 1000.0), now()),
              ${mergeMetadata("'{}'", 'm.meta', 'participant')}, m.browser, m.browser_version, m.os, m.device_type, m.sdk_version, m.country
       FROM m JOIN c ON c.project_id = m.project_id AND c.external_id = m.call_ext
       ON CONFLICT (call_id, external_id) DO UPDATE
         SET left_at = NULL, metadata = ${mergeMetadata('participant.metadata', 'EXCLUDED.metadata', 'participant')},
             -- The client it came back with, where that one says.
             browser = coalesce(EXCLUDED.browser, participant.browser), browser_version = coalesce(EXCLUDED.browser_version, participant.browser_version),
             os = coalesce(EXCLUDED.os, participant.os), device_type = coalesce(EXCLUDED.device_type, participant.device_type),
             sdk_version = coalesce(EXCLUDED.sdk_version, participant.sdk_version), country = coalesce(EXCLUDED.country, participant.country)
       RETURNING id, call_id, external_id
     )
     SELECT x.k, p.id, p.call_id, c.created AS call_created
     FROM x JOIN c ON c.project_id = x.project_id AND c.external_id = x.call_ext
            JOIN p ON p.call_id = c.id AND p.external_id = x.participant_ext
     ORDER BY x.k`,
    [
      regs.map((r) => r.projectId),
      regs.map((r) => r.callId),
      regs.map((r) => r.participantId),
      regs.map((r) => r.firstTs),
      regs.map((r) => JSON.stringify(r.metadata)),
      regs.map((r) => r.client.browser),
      regs.map((r) => r.client.browserVersion),
      regs.map((r) => r.client.os),
      regs.map((r) => r.client.deviceType),
      regs.map((r) => r.client.sdkVersion),
      regs.map((r) => r.client.country),
      regs.map((r) => r.kind),
    ],
  );
  // A call made by this statement is announced once, with the first of its sessions.
  const announced = new Set<number>();
  const byK = new Map(
    rows.map((r) => {
      const callCreated = r.call_created && !announced.has(r.call_id);
      announced.add(r.call_id);
      return [Number(r.k), { callDbId: r.call_id, participantDbId: r.id, callCreated }];
    }),
  );
  return regs.map((_, i) => byK.get(i + 1) ?? null);
}

/**
 * A new id in its project's retention tier, or the imported tier for a call made from a recording (a
 * stream takes its connection's): its samples land in that tier's partitions.
 */
const PROJECT_BASE = `(SELECT rtcscope_id_base(retention_days) FROM project WHERE id = x.project_id)`;
const TIERED_ID = {
  connection: `CASE WHEN (SELECT c.imported_at IS NOT NULL FROM participant p JOIN call c ON c.id = p.call_id WHERE p.id = x.participant_id)
    THEN rtcscope_imported_id_base() ELSE ${PROJECT_BASE} END + nextval('connection_id_seq')`,
  stream: `CASE WHEN x.connection_id >> ${ID_TIER_SHIFT} = ${IMPORTED_TIER} THEN rtcscope_imported_id_base() ELSE ${PROJECT_BASE} END + nextval('stream_id_seq')`,
};

async function registerConnections(pool: pg.Pool, regs: readonly ConnectionRegistration[]): Promise<Map<number, number>[]> {
  const all = regs.flatMap((r) => r.conns.map((c) => ({ r, c })));
  const { rows } = await pool.query<{ id: number; participant_id: number; session: string; key: string }>(
    `INSERT INTO connection (id, project_id, participant_id, session, key,
       local_candidate_type, local_protocol, remote_candidate_type, remote_protocol)
     SELECT ${TIERED_ID.connection}, x.*
     FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
       AS x(project_id, participant_id, session, key, local_candidate_type, local_protocol, remote_candidate_type, remote_protocol)
     ON CONFLICT (participant_id, session, key) DO UPDATE SET
       local_candidate_type = COALESCE(EXCLUDED.local_candidate_type, connection.local_candidate_type),
       local_protocol = COALESCE(EXCLUDED.local_protocol, connection.local_protocol),
       remote_candidate_type = COALESCE(EXCLUDED.remote_candidate_type, connection.remote_candidate_type),
       remote_protocol = COALESCE(EXCLUDED.remote_protocol, connection.remote_protocol)
     RETURNING id, participant_id, session, key`,
    [
      all.map(({ r }) => r.projectId),
      all.map(({ r }) => r.participantDbId),
      all.map(({ r }) => r.session),
      all.map(({ c }) => c.key),
      all.map(({ c }) => c.localCandidateType ?? null),
      all.map(({ c }) => c.localProtocol ?? null),
      all.map(({ c }) => c.remoteCandidateType ?? null),
      all.map(({ c }) => c.remoteProtocol ?? null),
    ],
  );
  const identity = (participant: number, session: string, key: string) => JSON.stringify([participant, session, key]);
  const ids = new Map(rows.map((row) => [identity(row.participant_id, row.session, row.key), row.id]));
  return regs.map((r) => new Map(r.conns.map((c) => [c.i, ids.get(identity(r.participantDbId, r.session, c.key)) ?? -1])));
}

async function registerStreams(pool: pg.Pool, regs: readonly StreamRegistration[]): Promise<Map<number, number>[]> {
  const all = regs.flatMap((r) => r.streams.map((s) => ({ r, s })));
  const { rows } = await pool.query<{ id: number; connection_id: number; direction: string; kind: string; ssrc: number }>(
    `INSERT INTO stream (id, project_id, connection_id, direction, kind, ssrc, rid, track_id, codec, implementation, content_type)
     SELECT ${TIERED_ID.stream}, x.*
     FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
       AS x(project_id, connection_id, direction, kind, ssrc, rid, track_id, codec, implementation, content_type)
     ON CONFLICT (connection_id, direction, kind, ssrc) DO UPDATE SET
       rid = COALESCE(EXCLUDED.rid, stream.rid),
       track_id = COALESCE(EXCLUDED.track_id, stream.track_id),
       codec = COALESCE(EXCLUDED.codec, stream.codec),
       implementation = COALESCE(EXCLUDED.implementation, stream.implementation),
       content_type = COALESCE(EXCLUDED.content_type, stream.content_type)
     RETURNING id, connection_id, direction, kind, ssrc`,
    [
      all.map(({ r }) => r.projectId),
      all.map(({ s }) => s.connectionDbId),
      all.map(({ s }) => s.direction),
      all.map(({ s }) => s.kind),
      all.map(({ s }) => s.ssrc),
      all.map(({ s }) => s.rid ?? null),
      all.map(({ s }) => s.trackId ?? null),
      all.map(({ s }) => s.codec ?? null),
      all.map(({ s }) => s.implementation ?? null),
      all.map(({ s }) => s.contentType ?? null),
    ],
  );
  const identity = (c: number, d: string, k: string, ssrc: number) => `${c}|${d}|${k}|${ssrc}`;
  const ids = new Map(rows.map((row) => [identity(row.connection_id, row.direction, row.kind, row.ssrc), row.id]));
  return regs.map((r) => new Map(r.streams.map((s) => [s.i, ids.get(identity(s.connectionDbId, s.direction, s.kind, s.ssrc)) ?? -1])));
}
