import { callVerdict, meanPerItem } from '@rtcscope/metrics';
import type { CallDetail, CallEvents, SfuView, CallList, CallListQuery, CallSummary, ClientInfo, Metadata } from '@rtcscope/protocol';
import { sendersOf } from '@rtcscope/diagnosis';
import { janusTrack } from '@rtcscope/protocol/fields';
import type { Database } from '../db/database.js';
import { callsInSegment } from '../insights/read.js';
import { callJudgements, callsWithIssue } from '../diagnosis/store.js';
import type { Prisma } from '../generated/prisma/client.js';
import { pointsSql } from '../samples/points.js';
import { roomEvents } from '../sfu/store.js';
import { sfuView } from '../sfu/view.js';

/**
 * The calls read model: a project's calls, one call with its participants, connections and streams,
 * its events. Only the caller's project is ever read: other projects' calls do not exist for it.
 */

type CallRow = Prisma.CallGetPayload<{ include: { participants: { select: { externalId: true } } } }>;

/** A call as the lists and its page show it, with its diagnosis' score and issues and the verdict made of them. */
function toSummary(call: CallRow, judged: Pick<CallSummary, 'score' | 'issues'> = { score: null, issues: [] }): CallSummary {
  const meanRttMs = meanPerItem(call.rttSum, call.rttCount);
  const meanLossPct = meanPerItem(call.lossSum, call.lossCount);
  const meanFps = meanPerItem(call.fpsSum, call.fpsCount);
  return {
    id: call.externalId,
    state: call.endedAt ? 'ended' : 'live',
    startedAt: call.startedAt.getTime(),
    endedAt: call.endedAt?.getTime() ?? null,
    lastSeenAt: call.lastSeenAt.getTime(),
    participants: call.participants.map((p) => p.externalId),
    quality: callVerdict({ score: judged.score, severities: judged.issues.map((i) => i.severity) }),
    meanRttMs,
    meanLossPct,
    meanFps,
    metadata: call.metadata as Metadata,
    ...judged,
  };
}

/** Finds a call of the caller's project or answers 404: other projects' calls do not exist for it. */
export async function findCall(db: Database, projectId: string, callId: string) {
  return db.prisma.call.findUnique({
    where: { projectId_externalId: { projectId, externalId: callId } },
    include: { participants: { select: { externalId: true }, orderBy: { joinedAt: 'asc' } } },
  });
}

/** A call with its participants, connections and streams, or null when the project has no such call. */
export async function loadCallDetail(db: Database, projectId: string, callId: string): Promise<CallDetail | null> {
  const call = await findCall(db, projectId, callId);
  if (!call) return null;
  const participants = await db.prisma.participant.findMany({
    where: { callId: call.id },
    orderBy: { joinedAt: 'asc' },
    include: { connections: { orderBy: { id: 'asc' }, include: { streams: { orderBy: { id: 'asc' } } } } },
  });
  const streamIds = participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => s.id)));
  const outOfRange = await outOfRangeCounts(db, streamIds, call.startedAt, call.endedAt ?? new Date());
  const from = sendersByStream(participants);
  return {
    sfu: await sfuViewOf(db, projectId, call, participants),
    call: toSummary(call, (await callJudgements(db.pool, [call.id])).get(String(call.id))),
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
          outOfRange: outOfRange.get(String(s.id)) ?? 0,
        })),
      })),
    })),
  };
}

/** How long before its first sample and after its last a call's room's SFU events are its own. */
const SFU_EVENT_MARGIN_MS = 10 * 60_000;

/**
 * The SFU's own view of the call's rooms (those its streams' track ids name), with each member tied to
 * the participant whose sent tracks are that member's feed, or else whose id is the member's display name.
 */
async function sfuViewOf(
  db: Database,
  projectId: string,
  call: { startedAt: Date; endedAt: Date | null; lastSeenAt: Date },
  participants: { externalId: string; connections: { streams: { direction: string; trackId: string | null }[] }[] }[],
): Promise<SfuView | null> {
  const feeds = new Map<string, string>();
  const rooms = new Set<string>();
  for (const p of participants)
    for (const s of p.connections.flatMap((c) => c.streams)) {
      const track = janusTrack(s.trackId);
      if (!track) continue;
      rooms.add(track.room);
      if (s.direction === 'out') feeds.set(`${track.room}:${track.feed}`, p.externalId);
    }
  if (!rooms.size) return null;
  const end = call.endedAt ?? call.lastSeenAt;
  const rows = await roomEvents(
    db.pool,
    projectId,
    'janus',
    [...rooms],
    new Date(call.startedAt.getTime() - SFU_EVENT_MARGIN_MS),
    new Date(end.getTime() + SFU_EVENT_MARGIN_MS),
  );
  const ids = new Set(participants.map((p) => p.externalId));
  return sfuView(rows, (room, feed, display) => feeds.get(`${room}:${feed}`) ?? (display !== null && ids.has(display) ? display : null));
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

/** Values each stream's samples held outside the field table (stored as null), by stream id; streams with none are left out. */
async function outOfRangeCounts(db: Database, streamIds: readonly bigint[], from: Date, to: Date): Promise<Map<string, number>> {
  if (!streamIds.length) return new Map();
  const { rows } = await db.pool.query<{ id: string; n: number }>(
    `SELECT stream_id::text AS id, sum(out_of_range)::int AS n FROM ${pointsSql('stream', ['out_of_range'], '$1::bigint[]', '$2::timestamptz', '$3::timestamptz')}
     WHERE out_of_range > 0 GROUP BY stream_id`,
    [streamIds.map(String), from, new Date(to.getTime() + 60_000)],
  );
  return new Map(rows.map((r) => [r.id, r.n]));
}

/** The project's calls, live first, then by most recent activity; or worst score first (`sort=score`). */
export async function listCalls(db: Database, projectId: string, query: CallListQuery): Promise<CallList> {
  const { from, to, state, participant, q, lab, issue, maxScore, breakdown, segment, source = 'all', sort = 'recent', limit = 100 } = query;
  const where: Prisma.CallWhereInput = { projectId: projectId };
  // A recording's dates may be years back: an imported call is in the period when it was imported then
  // (the insights' drill-down takes its period from the participants' summaries, by recorded date).
  const imported: Prisma.CallWhereInput = {
    importedAt: {
      not: null,
      ...(breakdown === undefined && from !== undefined ? { gte: new Date(from) } : {}),
      ...(breakdown === undefined && to !== undefined ? { lte: new Date(to) } : {}),
    },
  };
  const live: Prisma.CallWhereInput = {
    importedAt: null,
    ...(from !== undefined ? { lastSeenAt: { gte: new Date(from) } } : {}),
    ...(to !== undefined ? { startedAt: { lte: new Date(to) } } : {}),
  };
  const parts = source === 'imported' ? [imported] : source === 'live' ? [live] : [live, imported];
  if (state) where.endedAt = state === 'live' ? null : { not: null };
  if (maxScore !== undefined) where.score = { lte: maxScore };
  const and: Prisma.CallWhereInput[] = [];
  if (participant) and.push({ participants: { some: { externalId: participant } } });
  if (lab) and.push({ metadata: { path: ['lab'], equals: true } });
  if (breakdown !== undefined) {
    // The insights' drill-down: the period is the participants' joining, as there.
    const period = { from: from ?? 0, to: to ?? Date.now() };
    and.push({
      id: {
        in: await callsInSegment(db, projectId, {
          breakdown,
          segment: segment ? segment : null,
          ...period,
          issue,
          source: source === 'all' ? 'live' : source,
        }),
      },
    });
  } else if (issue) and.push({ id: { in: await callsWithIssue(db.pool, projectId, issue) } });
  if (q) {
    // Prisma hands `contains` to ILIKE as it is: % and _ would match anything.
    const text = q.replace(/[\\%_]/g, '\\$&');
    and.push({
      OR: [
        { externalId: { contains: text, mode: 'insensitive' } },
        { participants: { some: { externalId: { contains: text, mode: 'insensitive' } } } },
      ],
    });
  }
  if (and.length) where.AND = and;
  const find = (parts: Prisma.CallWhereInput[], orderBy: Prisma.CallOrderByWithRelationInput[]) =>
    db.prisma.call.findMany({
      where: { ...where, OR: parts },
      include: { participants: { select: { externalId: true }, orderBy: { joinedAt: 'asc' } } },
      orderBy,
      take: limit,
    });
  const calls =
    sort === 'score'
      ? await find(parts, [{ score: { sort: 'asc', nulls: 'last' } }, { lastSeenAt: 'desc' }])
      : // Most recent first, an imported call by when it was imported (its own times may be years back).
        [
          ...(source === 'imported' ? [] : await find([live], [{ lastSeenAt: 'desc' }])),
          ...(source === 'live' ? [] : await find([imported], [{ importedAt: 'desc' }])),
        ]
          .sort((a, b) => activity(b) - activity(a))
          .slice(0, limit);
  const judged = await callJudgements(
    db.pool,
    calls.map((c) => c.id),
  );
  const summaries = calls.map((c) => toSummary(c, judged.get(String(c.id))));
  if (sort === 'score') return { calls: summaries };
  return { calls: [...summaries.filter((c) => c.state === 'live'), ...summaries.filter((c) => c.state === 'ended')] };
}

const activity = (call: { importedAt: Date | null; lastSeenAt: Date }) => (call.importedAt ?? call.lastSeenAt).getTime();

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
