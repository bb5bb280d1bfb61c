import { ProjectInfo, ProjectUpdate } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { ANSWERS } from './schemas.js';

/** A project as the API shows it, with the ingest limit that applies to it. */
export function projectInfo(
  p: { id: string; name: string; ingestKey: string; retentionDays: number; ingestLimit: number | null },
  projectIngestLimit: number | null,
): ProjectInfo {
  return {
    id: p.id,
    name: p.name,
    ingestKey: p.ingestKey,
    retentionDays: p.retentionDays as ProjectInfo['retentionDays'],
    ingestLimit: p.ingestLimit ?? projectIngestLimit,
  };
}

export async function projectRoutes(app: FastifyInstance, { db, projectIngestLimit }: { db: Database; projectIngestLimit: number | null }) {
  const toInfo = (p: Parameters<typeof projectInfo>[0]) => projectInfo(p, projectIngestLimit);

  app.get(
    '/project',
    { schema: { summary: 'The project of the API key, with its publishable ingest key, retention and ingest limit', response: { 200: ProjectInfo, ...ANSWERS } } },
    async (request) => toInfo(await db.prisma.project.findUniqueOrThrow({ where: { id: request.projectId } })),
  );

  app.patch<{ Body: ProjectUpdate }>(
    '/project',
    {
      schema: {
        summary: 'Change how long raw samples are kept (7, 30, 90 or 365 days); streams that start from now on follow it',
        body: ProjectUpdate,
        response: { 200: ProjectInfo, ...ANSWERS },
      },
    },
    async (request) => toInfo(await db.prisma.project.update({ where: { id: request.projectId }, data: { retentionDays: request.body.retentionDays } })),
  );
}
