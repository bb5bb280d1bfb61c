import { qualityHint } from '@rtcscope/metrics';
import {
  CallDetail,
  CallEvents,
  CallList,
  CallListQuery,
  type CallSummary,
  type Metadata,
} from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';
import { errorBody } from '../http/errors.js';
import { ANSWERS, CallParams, ID_ANSWERS } from './schemas.js';

type CallRow = Prisma.CallGetPayload<{ include: { participants: { select: { externalId: true } } } }>;

export function toSummary(call: CallRow): CallSummary {
  const mean = (sum: number, count: number) => (count > 0 ? sum / count : null);
  const meanRttMs = mean(call.rttSum, call.rttCount);
  const meanLossPct = mean(call.lossSum, call.lossCount);
  const meanFps = mean(call.fpsSum, call.fpsCount);
  return {
    id: call.externalId,
    state: call.endedAt ? 'ended' : 'live',
    startedAt: call.startedAt.getTime(),
    endedAt: call.endedAt?.getTime() ?? null,
    lastSeenAt: call.lastSeenAt.getTime(),
    participants: call.participants.map((p) => p.externalId),
    quality: qualityHint({ lossPct: meanLossPct, rttMs: meanRttMs, fps: meanFps }),
    meanRttMs,
    meanLossPct,
    meanFps,
    metadata: call.metadata as Metadata,
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
  return {
    call: toSummary(call),
    participants: participants.map((p) => ({
      id: p.externalId,
      joinedAt: p.joinedAt.getTime(),
      leftAt: p.leftAt?.getTime() ?? null,
      lastSeenAt: p.lastSeenAt.getTime(),
      metadata: p.metadata as Metadata,
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
          codec: s.codec,
          implementation: s.implementation,
        })),
      })),
    })),
  };
}

export const notFound = errorBody(404, 'no such call in this project');

export async function callRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get<{ Querystring: CallListQuery }>(
    '/calls',
    { schema: { summary: 'Calls, live first, then by most recent activity', querystring: CallListQuery, response: { 200: CallList, ...ANSWERS } } },
    async (request) => {
      const { from, to, state, participant, q, lab, limit = 100 } = request.query;
      const where: Prisma.CallWhereInput = { projectId: request.projectId };
      if (from !== undefined) where.lastSeenAt = { gte: new Date(from) };
      if (to !== undefined) where.startedAt = { lte: new Date(to) };
      if (state) where.endedAt = state === 'live' ? null : { not: null };
      const and: Prisma.CallWhereInput[] = [];
      if (participant) and.push({ participants: { some: { externalId: participant } } });
      if (lab) and.push({ metadata: { path: ['lab'], equals: true } });
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
      const calls = await db.prisma.call.findMany({
        where,
        include: { participants: { select: { externalId: true }, orderBy: { joinedAt: 'asc' } } },
        orderBy: [{ lastSeenAt: 'desc' }],
        take: limit,
      });
      const summaries = calls.map(toSummary);
      return { calls: [...summaries.filter((c) => c.state === 'live'), ...summaries.filter((c) => c.state === 'ended')] };
    },
  );

  app.get<{ Params: { callId: string } }>(
    '/calls/:callId',
    { schema: { summary: "A call with its participants, connections and streams", params: CallParams, response: { 200: CallDetail, ...ID_ANSWERS } } },
    async (request, reply) => (await loadCallDetail(db, request.projectId, request.params.callId)) ?? reply.code(404).send(notFound),
  );

  app.get<{ Params: { callId: string } }>(
    '/calls/:callId/events',
    { schema: { summary: 'Connection, ICE, signaling and track events of a call', params: CallParams, response: { 200: CallEvents, ...ID_ANSWERS } } },
    async (request, reply) => {
      const call = await findCall(db, request.projectId, request.params.callId);
      if (!call) return reply.code(404).send(notFound);
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
    },
  );
}
