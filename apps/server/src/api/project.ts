import { ApiError, ProjectInfo } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';

export async function projectRoutes(app: FastifyInstance, { db }: { db: Database }) {
  app.get(
    '/project',
    { schema: { summary: 'The project of the API key, with its publishable ingest key', response: { 200: ProjectInfo, 401: ApiError } } },
    async (request) => {
      const p = await db.prisma.project.findUniqueOrThrow({ where: { id: request.projectId } });
      return { id: p.id, name: p.name, ingestKey: p.ingestKey };
    },
  );
}
