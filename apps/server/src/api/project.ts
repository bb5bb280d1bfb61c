import { ProjectInfo, ProjectUpdate } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { loadProject, setRetention } from '../projects/project.js';
import { ANSWERS } from './schemas.js';

export async function projectRoutes(app: FastifyInstance, { db, projectIngestLimit }: { db: Database; projectIngestLimit: number | null }) {
  app.get(
    '/project',
    { schema: { summary: 'The project of the API key, with its publishable ingest key, retention and ingest limit', response: { 200: ProjectInfo, ...ANSWERS } } },
    async (request) => loadProject(db, request.projectId, projectIngestLimit),
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
    async (request) => setRetention(db, request.projectId, request.body.retentionDays, projectIngestLimit),
  );
}
