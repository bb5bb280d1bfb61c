import { ProjectInfo, ProjectUpdate } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { auditRequest } from '../access/plugin.js';
import { inTransaction } from '../../db/client.js';
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
    async (request) => loadProject(db.pool, request.projectId, projectIngestLimit),
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
      inTransaction(db.pool, async (client) => {
        const before = await loadProject(db.pool, request.projectId, projectIngestLimit);
        const after = await setRetention(client, request.projectId, request.body.retentionDays, projectIngestLimit);
        await auditRequest(client, request, 'project.retention-changed', after.name, {
          from: before.retentionDays,
          to: after.retentionDays,
        });
        return after;
      }),
  );
}
