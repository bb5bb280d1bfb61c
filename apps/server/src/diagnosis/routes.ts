import { CallDiagnosis, IssueList, IssueQuery } from '@rtcscope/protocol';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { diagnoseStoredCall } from './stored.js';
import { listIssues, loadDiagnosis } from './read.js';
import { CALL_NOT_FOUND } from '../http/errors.js';
import { ANSWERS, CallParams, ID_ANSWERS } from '../http/schemas.js';

const DiagnosisQuery = Type.Object(
  {
    source: Type.Optional(
      Type.Union([Type.Literal('stored'), Type.Literal('samples')], {
        default: 'stored',
        description:
          'stored: what the live diagnosis found; samples: the call diagnosed again from its stored samples now (nothing is stored; issue ids are 0)',
      }),
    ),
  },
  { additionalProperties: false },
);
type DiagnosisQuery = Static<typeof DiagnosisQuery>;

export async function diagnosisRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get<{ Params: { callId: string }; Querystring: DiagnosisQuery }>(
    '/calls/:callId/diagnosis',
    {
      schema: {
        summary: "A call's issues (who, what, when, why, what to check) and its scores per 5-s window, per participant and for the call",
        params: CallParams,
        querystring: DiagnosisQuery,
        response: { 200: CallDiagnosis, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const { callId } = request.params;
      const found =
        request.query.source === 'samples'
          ? await diagnoseStoredCall(db, request.projectId, callId)
          : await loadDiagnosis(db, request.projectId, callId);
      return found ?? reply.code(404).send(CALL_NOT_FOUND);
    },
  );

  app.get<{ Querystring: IssueQuery }>(
    '/issues',
    {
      schema: {
        summary: 'Issues across calls, newest first, by type, participant and time',
        querystring: IssueQuery,
        response: { 200: IssueList, ...ANSWERS },
      },
    },
    async (request) => ({ issues: await listIssues(db, request.projectId, request.query) }),
  );
}
