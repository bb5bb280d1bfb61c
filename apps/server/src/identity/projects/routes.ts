import { ProjectInfo, ProjectUpdate } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { auditRequest } from '../access/plugin.js';
import type { Database } from '../../db/database.js';
import { loadProject, setRetention } from './project.js';
import { ANSWERS } from '../../http/schemas.js';

export async function projectRoutes(app: FastifyInstance, { db, projectIngestLimit }: { db: Database; projectIngestLimit: number | null }) {
  app.get(
    '/project',
    {
      schema: {
        summary: 'The project, with its publishable ingest key, retention and ingest limit',
        response: { 200: ProjectInfo, ...ANSWERS },
      },
    },
    async (request) => loadProject(db.prisma, request.projectId, projectIngestLimit),
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
    async (request) =>
      db.prisma.$transaction(async (tx) => {
        const before = await loadProject(db.prisma, request.projectId, projectIngestLimit);
        const after = await setRetention(tx, request.projectId, request.body.retentionDays, projectIngestLimit);
        await auditRequest(tx, request, 'project.retention-changed', after.name, {
          from: before.retentionDays,
          to: after.retentionDays,
        });
        return after;
      }),
  );
}
