import { meanPerItem } from '@rtcscope/metrics';
import type { CallDetail, SfuView, CallList, CallListQuery, CallSummary, Metadata } from '@rtcscope/protocol';
import { janusTrack, liveKitTrack, toId } from '@rtcscope/protocol/fields';
import type { Database } from '../db/database.js';
import { callsInSegment } from '../insights/read.js';
import { callJudgements, callsWithIssue, verdictOf } from '../diagnosis/store.js';
import { Prisma } from '../generated/prisma/client.js';
import { type CallRow, loadCallRecord } from '../samples/call-record.js';
import { roomEvents } from '../sfu/store.js';
import { withStreamLives } from './stream-life.js';
import { sfuView } from '../sfu/view.js';

/**
 * The calls read model: a project's calls and one call with its participants, connections and streams,
 * as stored (samples/call-record.ts), with what the diagnosis judged of them and the SFU's own view. Only
 * the caller's project is ever read: other projects' calls do not exist for it.
 */

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
    quality: verdictOf(judged),
    meanRttMs,
    meanLossPct,
    meanFps,
    metadata: call.metadata as Metadata,
    ...judged,
  };
}

/** A call with its participants, connections and streams, judged, or null when the project has no such call. */
export async function loadCallDetail(db: Database, projectId: string, callId: string): Promise<CallDetail | null> {
  const record = await loadCallRecord(db, projectId, callId);
  if (!record) return null;
  const { row, participants } = record;
  const [sfu, judged, lived] = await Promise.all([
    sfuViewOf(db, projectId, callId, row, participants),
    callJudgements(db.pool, [row.id]),
    withStreamLives(db, record),
  ]);
  return { sfu, call: toSummary(row, judged.get(String(row.id))), participants: lived };
}

/** How long before its first sample and after its last a call's room's SFU events are its own. */
const SFU_EVENT_MARGIN_MS = 10 * 60_000;

/**
 * The SFU's own view of the call's rooms: Janus's rooms its streams' track ids name, each member tied to
 * the participant whose sent tracks are that member's feed, or else whose id is the member's display
 * name; a LiveKit room, the call its adapter named after it, each member tied to the participant whose
 * sent tracks carry its tracks' SIDs, or else whose id is its identity.
 */
async function sfuViewOf(
  db: Database,
  projectId: string,
  callId: string,
  call: { startedAt: Date; endedAt: Date | null; lastSeenAt: Date },
  participants: { id: string; connections: { streams: { direction: string; trackId: string | null }[] }[] }[],
): Promise<SfuView | null> {
  const feeds = new Map<string, string>();
  const rooms = new Set<string>();
  const liveKitTracks = new Map<string, string>();
  for (const p of participants)
    for (const s of p.connections.flatMap((c) => c.streams)) {
      const sid = liveKitTrack(s.trackId);
      if (sid !== null && s.direction === 'out') liveKitTracks.set(sid, p.id);
      const track = janusTrack(s.trackId);
      if (!track) continue;
      rooms.add(track.room);
      if (s.direction === 'out') feeds.set(`${track.room}:${track.feed}`, p.id);
    }
  const livekit = liveKitTracks.size > 0 && !rooms.size;
  if (!rooms.size && !livekit) return null;
  const end = call.endedAt ?? call.lastSeenAt;
  const rows = await roomEvents(
    db.pool,
    projectId,
    livekit ? 'livekit' : 'janus',
    livekit ? [callId] : [...rooms],
    new Date(call.startedAt.getTime() - SFU_EVENT_MARGIN_MS),
    new Date(end.getTime() + SFU_EVENT_MARGIN_MS),
  );
  const ids = new Set(participants.map((p) => p.id));
  if (livekit) {
    const byTracks = new Map<string, string>();
    for (const r of rows)
      for (const t of r.detail.streams ?? []) if (liveKitTracks.has(t.mid)) byTracks.set(r.feed, liveKitTracks.get(t.mid)!);
    return sfuView('livekit', rows, (_room, identity) => byTracks.get(identity) ?? (ids.has(toId(identity)) ? toId(identity) : null));
  }
  return sfuView(
    'janus',
    rows,
    (room, feed, display) => feeds.get(`${room}:${feed}`) ?? (display !== null && ids.has(display) ? display : null),
  );
}

/** The project's calls, live first, then by most recent activity; or worst score first (`sort=score`). */
export async function listCalls(db: Database, projectId: string, query: CallListQuery): Promise<CallList> {
  const { from, to, state, participant, q, lab, issue, maxScore, breakdown, segment, source = 'all', sort = 'recent', limit = 100 } = query;
  // Pre-call tests are listed on their own page (precall/read.ts).
  const where: Prisma.CallWhereInput = { projectId, kind: 'call' };
  // A recording's dates may be years back: an imported call is in the period when it was imported then
  // (the insights' drill-down takes its period from the participants' summaries, by recorded date).
  const imported: Prisma.CallWhereInput = {
    importedAt: {
      not: null,
      ...(breakdown === undefined && from !== undefined ? { gte: new Date(from) } : {}),
      ...(breakdown === undefined && to !== undefined ? { lte: new Date(to) } : {}),
    },
  };
  const labRun: Prisma.CallWhereInput = { metadata: { path: ['lab'], equals: true } };
  // NOT alone would drop a call whose metadata has no `lab` (SQL's NULL): no key is production's too.
  const production: Prisma.CallWhereInput = { OR: [{ NOT: labRun }, { metadata: { path: ['lab'], equals: Prisma.AnyNull } }] };
  const live: Prisma.CallWhereInput = {
    importedAt: null,
    ...(source === 'live' ? production : source === 'lab' ? labRun : {}),
    ...(from !== undefined ? { lastSeenAt: { gte: new Date(from) } } : {}),
    ...(to !== undefined ? { startedAt: { lte: new Date(to) } } : {}),
  };
  const parts = source === 'imported' ? [imported] : source === 'all' ? [live, imported] : [live];
  if (state) where.endedAt = state === 'live' ? null : { not: null };
  if (maxScore !== undefined) where.score = { lte: maxScore };
  const and: Prisma.CallWhereInput[] = [];
  if (participant) and.push({ participants: { some: { externalId: participant } } });
  if (lab !== undefined) and.push(lab ? labRun : production);
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
      include: { participants: { select: { externalId: true }, orderBy: { id: 'asc' } } },
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
