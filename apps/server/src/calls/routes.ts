import { CallDetail, CallEvents, CallList, CallListQuery } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { loadEvents } from '../samples/call-record.js';
import { listCalls, loadCallDetail } from './read.js';
import type { Database } from '../db/database.js';
import { CALL_NOT_FOUND, errorBody } from '../http/errors.js';
import { ANSWERS, CallParams, ID_ANSWERS } from '../http/schemas.js';

export async function callRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get<{ Querystring: CallListQuery }>(
    '/calls',
    {
      schema: {
        summary: 'Calls, live first, then by most recent activity',
        querystring: CallListQuery,
        response: { 200: CallList, ...ANSWERS },
      },
    },
    async (request, reply) => {
      if ((request.query.segment === undefined) !== (request.query.breakdown === undefined)) {
        return reply
          .code(400)
          .send(
            errorBody(400, 'querystring/segment and querystring/breakdown go together: a segment of a breakdown (the insights drill-down)'),
          );
      }
      return listCalls(db, request.projectId, request.query);
    },
  );

  app.get<{ Params: { callId: string } }>(
    '/calls/:callId',
    {
      schema: {
        summary: 'A call with its participants, connections and streams',
        params: CallParams,
        response: { 200: CallDetail, ...ID_ANSWERS },
      },
    },
    async (request, reply) => (await loadCallDetail(db, request.projectId, request.params.callId)) ?? reply.code(404).send(CALL_NOT_FOUND),
  );

  app.get<{ Params: { callId: string } }>(
    '/calls/:callId/events',
    {
      schema: {
        summary: 'Connection, ICE, signaling and track events of a call',
        params: CallParams,
        response: { 200: CallEvents, ...ID_ANSWERS },
      },
    },
    async (request, reply) => (await loadEvents(db, request.projectId, request.params.callId)) ?? reply.code(404).send(CALL_NOT_FOUND),
  );
}
