import { ApiError, ProjectInfo, ProjectUpdate } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';

const toInfo = (p: { id: string; name: string; ingestKey: string; retentionDays: number }): ProjectInfo => ({
  id: p.id,
  name: p.name,
  ingestKey: p.ingestKey,
  retentionDays: p.retentionDays as ProjectInfo['retentionDays'],
});

export async function projectRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get(
    '/project',
    { schema: { summary: 'The project of the API key, with its publishable ingest key and retention', response: { 200: ProjectInfo, 401: ApiError } } },
    async (request) => toInfo(await db.prisma.project.findUniqueOrThrow({ where: { id: request.projectId } })),
  );

  app.patch<{ Body: ProjectUpdate }>(
    '/project',
    {
      schema: {
        summary: 'Change how long raw samples are kept (7, 30, 90 or 365 days); streams that start from now on follow it',
        body: ProjectUpdate,
        response: { 200: ProjectInfo, 400: ApiError, 401: ApiError },
      },
    },
    async (request) => toInfo(await db.prisma.project.update({ where: { id: request.projectId }, data: { retentionDays: request.body.retentionDays } })),
  );
}
