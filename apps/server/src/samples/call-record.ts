import type { CallDetail, CallEvents, ClientInfo, Metadata } from '@rtcscope/protocol';
import { endsConnection, sendersOf, type StreamFacts, streamStates } from '@rtcscope/diagnosis';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';
import { pointsSql } from './points.js';

/**
 * A call as it was stored: its row, its participants with their connections and streams, its events. What
 * the read model above (calls/) shows with the judgements, and what the diagnosis and the insights read
 * a call back from; only the caller's project is ever read.
 */

export type CallRow = Prisma.CallGetPayload<{ include: { participants: { select: { externalId: true } } } }>;

export interface CallRecord {
  row: CallRow;
  participants: CallDetail['participants'];
}

/** Finds a call of the caller's project or answers 404: other projects' calls do not exist for it. */
export async function findCall(db: Database, projectId: string, callId: string) {
  return db.prisma.call.findUnique({
    where: { projectId_externalId: { projectId, externalId: callId } },
    include: { participants: { select: { externalId: true }, orderBy: { joinedAt: 'asc' } } },
  });
}

/** A call's row and its participants, connections and streams, or null when the project has no such call. */
export async function loadCallRecord(db: Database, projectId: string, callId: string): Promise<CallRecord | null> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const participants = await db.prisma.participant.findMany({
    where: { callId: call.id },
    orderBy: { joinedAt: 'asc' },
    include: { connections: { orderBy: { id: 'asc' }, include: { streams: { orderBy: { id: 'asc' } } } } },
  });
  const streamIds = participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => s.id)));
  const [stored, ended] = await Promise.all([
    storedFacts(db, streamIds, call.startedAt, call.endedAt ?? new Date()),
    connectionsEnded(db, call.id),
  ]);
  const from = sendersByStream(participants);
  const noSamples: Omit<StoredFacts['facts'], 'connectionEndedAt'> = {
    firstActiveAt: null,
    lastActiveAt: null,
    lastSaidAt: null,
    intervalMs: null,
  };
  const states = streamStates(
    participants.flatMap((p) =>
      p.connections.flatMap((c) =>
        c.streams.map((s) => ({
          id: Number(s.id),
          participant: p.externalId,
          direction: s.direction as 'in' | 'out',
          ...(stored.get(String(s.id))?.facts ?? noSamples),
          connectionEndedAt: ended.get(String(c.id)) ?? null,
        })),
      ),
    ),
  );
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
          outOfRange: stored.get(String(s.id))?.outOfRange ?? 0,
          state: states.get(Number(s.id))!,
          activeFrom: stored.get(String(s.id))?.facts.firstActiveAt ?? null,
          activeUntil: stored.get(String(s.id))?.facts.lastActiveAt ?? null,
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

/** What each stream's samples held over the call: values outside the field table (stored as null) and when it carried media. */
interface StoredFacts {
  outOfRange: number;
  facts: Omit<StreamFacts, 'id' | 'participant' | 'direction' | 'connectionEndedAt'>;
}

/** Each stream's `StoredFacts` by stream id, in one pass over its samples; streams without any are left out. */
async function storedFacts(db: Database, streamIds: readonly bigint[], from: Date, to: Date): Promise<Map<string, StoredFacts>> {
  if (!streamIds.length) return new Map();
  const carried = `(coalesce(kbps, 0) > 0 OR coalesce(fps, 0) > 0)`;
  const { rows } = await db.pool.query<{
    id: string;
    out_of_range: number;
    first_active: Date | null;
    last_active: Date | null;
    last_said: Date | null;
    first_sample: Date;
    last_sample: Date;
    n: number;
  }>(
    `SELECT stream_id::text AS id, coalesce(sum(out_of_range), 0)::int AS out_of_range,
            min(ts) FILTER (WHERE ${carried}) AS first_active, max(ts) FILTER (WHERE ${carried}) AS last_active,
            max(ts) FILTER (WHERE kbps IS NOT NULL OR fps IS NOT NULL) AS last_said,
            min(ts) AS first_sample, max(ts) AS last_sample, count(*)::int AS n
     FROM ${pointsSql('stream', ['out_of_range', 'kbps', 'fps'], '$1::bigint[]', '$2::timestamptz', '$3::timestamptz')}
     GROUP BY stream_id`,
    [streamIds.map(String), from, new Date(to.getTime() + 60_000)],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        outOfRange: r.out_of_range,
        facts: {
          firstActiveAt: r.first_active?.getTime() ?? null,
          lastActiveAt: r.last_active?.getTime() ?? null,
          lastSaidAt: r.last_said?.getTime() ?? null,
          intervalMs: r.n > 1 ? (r.last_sample.getTime() - r.first_sample.getTime()) / (r.n - 1) : null,
        },
      },
    ]),
  );
}

/**
 * When each of a call's connections last ended (`endsConnection`: its page closed it, its far end hung
 * up), by connection id; connections that never did are left out. Read from its events, as the
 * diagnosis is told of them.
 */
async function connectionsEnded(db: Database, callDbId: bigint): Promise<Map<string, number>> {
  const events = await db.prisma.callEvent.findMany({
    where: { callId: callDbId, connectionId: { not: null }, type: { in: ['connection-state', 'dtls-state'] } },
    select: { connectionId: true, type: true, detail: true, ts: true },
  });
  const out = new Map<string, number>();
  for (const e of events)
    if (endsConnection(e.type, e.detail)) out.set(String(e.connectionId), Math.max(out.get(String(e.connectionId)) ?? 0, e.ts.getTime()));
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
