import type { CallEvents, ClientInfo, ConnectionInfo, Metadata, ParticipantInfo, StreamInfo } from '@rtcscope/protocol';
import { sendersOf } from '@rtcscope/diagnosis';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';

/**
 * A call as it was stored: its row, its participants with their connections and streams, its events. What
 * the read model above (calls/) shows with the judgements, and what the diagnosis and the insights read
 * a call back from; only the caller's project is ever read.
 */

export type CallRow = Prisma.CallGetPayload<{ include: { participants: { select: { externalId: true } } } }>;

/** What a stream's samples tell of its life over the call (calls/stream-life.ts), which a record leaves to the call's page. */
export type StreamLife = Pick<StreamInfo, 'outOfRange' | 'state' | 'activeFrom' | 'activeUntil'>;
export type StoredStream = Omit<StreamInfo, keyof StreamLife>;
/** What a connection's events tell of it (calls/stream-life.ts), which a record leaves to the call's page too. */
export type ConnectionLife = Pick<ConnectionInfo, 'media'>;
export type StoredConnection = Omit<ConnectionInfo, 'streams' | keyof ConnectionLife> & { streams: StoredStream[] };
export type StoredParticipant = Omit<ParticipantInfo, 'connections'> & { connections: StoredConnection[] };

export interface CallRecord {
  row: CallRow;
  participants: StoredParticipant[];
}

/** Finds a call of the caller's project or answers 404: other projects' calls do not exist for it. */
export async function findCall(db: Database, projectId: string, callId: string) {
  return db.prisma.call.findUnique({
    where: { projectId_externalId: { projectId, externalId: callId } },
    include: { participants: { select: { externalId: true }, orderBy: { id: 'asc' } } },
  });
}

/** A call's row and its participants, connections and streams, or null when the project has no such call. */
export async function loadCallRecord(db: Database, projectId: string, callId: string): Promise<CallRecord | null> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const participants = await db.prisma.participant.findMany({
    where: { callId: call.id },
    // In the order the server first heard of them: what the call page gives its colours by, live and
    // on every load alike (a client's clock dated back once put a later participant first).
    orderBy: { id: 'asc' },
    include: { connections: { orderBy: { id: 'asc' }, include: { streams: { orderBy: { id: 'asc' } } } } },
  });
  const from = sendersByStream(participants);
  return {
    row: call,
    participants: participants.map((p) => ({
      id: p.externalId,
      joinedAt: p.joinedAt.getTime(),
      leftAt: p.leftAt?.getTime() ?? null,
      lastSeenAt: p.lastSeenAt.getTime(),
      metadata: p.metadata as Metadata,
      client: {
        browser: p.browser,
        browserVersion: p.browserVersion,
        os: p.os,
        deviceType: p.deviceType as ClientInfo['deviceType'],
        sdkVersion: p.sdkVersion,
        country: p.country,
      },
      connections: p.connections.map((c) => ({
        id: Number(c.id),
        key: c.key,
        session: c.session,
        localCandidateType: c.localCandidateType,
        localProtocol: c.localProtocol,
        remoteCandidateType: c.remoteCandidateType,
        remoteProtocol: c.remoteProtocol,
        streams: c.streams.map((s) => ({
          id: Number(s.id),
          direction: s.direction as 'in' | 'out',
          kind: s.kind as 'audio' | 'video',
          ssrc: Number(s.ssrc),
          rid: s.rid,
          trackId: s.trackId,
          from: from.get(s.id) ?? null,
          codec: s.codec,
          implementation: s.implementation,
          contentType: s.contentType === 'screenshare' ? 'screenshare' : null,
        })),
      })),
    })),
  };
}

/** Each received stream's sender (`sendersOf`, the diagnosis' own matching), by stream id. */
function sendersByStream(
  participants: {
    externalId: string;
    connections: { id: bigint; streams: { id: bigint; direction: string; kind: string; ssrc: bigint; trackId: string | null }[] }[];
  }[],
): Map<bigint, string> {
  const views = participants.flatMap((p) =>
    p.connections.flatMap((c) =>
      c.streams.map((s) => ({
        meta: {
          id: Number(s.id),
          participant: p.externalId,
          connectionId: Number(c.id),
          direction: s.direction as 'in' | 'out',
          kind: s.kind as 'audio' | 'video',
          ssrc: Number(s.ssrc),
          trackId: s.trackId,
          codec: null,
        },
        dbId: s.id,
      })),
    ),
  );
  const out = new Map<bigint, string>();
  for (const v of views) {
    const sender = v.meta.direction === 'in' ? sendersOf(views, v)[0] : undefined;
    if (sender) out.set(v.dbId, sender.meta.participant);
  }
  return out;
}

/** A call's events in time order, or null when the project has no such call. */
export async function loadEvents(db: Database, projectId: string, callId: string): Promise<CallEvents | null> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const events = await db.prisma.callEvent.findMany({
    where: { callId: call.id },
    orderBy: [{ ts: 'asc' }, { id: 'asc' }],
    take: 10_000,
    include: { participant: { select: { externalId: true } } },
  });
  return {
    events: events.map((e) => ({
      ts: e.ts.getTime(),
      participantId: e.participant.externalId,
      connectionId: e.connectionId === null ? null : Number(e.connectionId),
      type: e.type,
      detail: e.detail,
    })),
  };
}
