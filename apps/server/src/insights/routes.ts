import { Insights, InsightsQuery } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { loadInsights } from './read.js';
import { ANSWERS } from '../http/schemas.js';

export async function insightsRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get<{ Querystring: InsightsQuery }>(
    '/insights',
    {
      schema: {
        summary: "The fleet's call quality over a period, broken down by browser, OS, device, SDK, path or a metadata key (docs/api.md)",
        querystring: InsightsQuery,
        response: { 200: Insights, ...ANSWERS },
      },
    },
    async (request) => loadInsights(db, request.projectId, request.query),
  );
}
