import {
  ApiError,
  PrecallDetail,
  PrecallInsights,
  PrecallInsightsQuery,
  PrecallList,
  PrecallListQuery,
  PrecallRecipient,
  PrecallRecipientQuery,
} from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { errorBody } from '../http/errors.js';
import { ANSWERS, CallParams, ID_ANSWERS } from '../http/schemas.js';
import { listPrecallTests, precallInsights, readPrecallTest } from './read.js';

/** The pre-call tests the SDK's runPrecallTest and the hosted test page stored (docs/precall.md). */
export async function precallRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get<{ Querystring: PrecallListQuery }>(
    '/precall-tests',
    {
      schema: {
        summary: "The project's pre-call tests, newest first, with their verdicts and what they found",
        querystring: PrecallListQuery,
        response: { 200: PrecallList, ...ANSWERS },
      },
    },
    async (request) => listPrecallTests(db, request.projectId, request.query),
  );
  app.get<{ Querystring: PrecallInsightsQuery }>(
    '/precall-tests/insights',
    {
      schema: {
        summary:
          'Pre-call tests of a period by browser, OS, country, path or a metadata key: verdicts, who needed TURN, TCP or TLS, throughput and RTT percentiles',
        querystring: PrecallInsightsQuery,
        response: { 200: PrecallInsights, ...ANSWERS },
      },
    },
    async (request) => precallInsights(db, request.projectId, request.query),
  );
  app.get<{ Params: { callId: string } }>(
    '/precall-tests/:callId',
    {
      schema: {
        summary: 'One pre-call test with its whole report (devices, candidates, each way to the TURN server, media steps)',
        params: CallParams,
        response: { 200: PrecallDetail, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const test = await readPrecallTest(db, request.projectId, request.params.callId);
      return test ?? reply.code(404).send(errorBody(404, `no pre-call test ${request.params.callId} in this project`));
    },
  );
  // Public, and apart from /precall-tests (whose `:callId` would take its name): the page a support engineer's link opens says whose project the customer's results go to
  // before it runs, so that a link carrying someone else's key is seen for what it is. The key is
  // publishable (it sits in every monitored page), and it tells no more than the names.
  app.post<{ Body: PrecallRecipientQuery }>(
    '/hosted-test/recipient',
    {
      schema: {
        summary: "Whose project a publishable ingest key reports to (the organization's and the project's names), for the hosted test page",
        body: PrecallRecipientQuery,
        response: { 200: PrecallRecipient, ...ANSWERS, 404: ApiError },
      },
    },
    async (request, reply) => {
      const key = await app.keys.ingest(request.body.ingestKey);
      const project =
        key &&
        (await db.prisma.project.findUnique({
          where: { id: key.projectId },
          select: { name: true, organization: { select: { name: true } } },
        }));
      if (!project) return reply.code(404).send(errorBody(404, "this link's project key is not valid: ask whoever sent it for a new link"));
      return { organization: project.organization.name, project: project.name };
    },
  );
}
