import { ApiError, ApiKeyCreate, ApiKeyCreated, type ApiKeyInfo, ApiKeyList, ProjectInfo } from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { hashKey, newKey } from '../auth/keys.js';
import type { ProjectChange } from '../projects/changes.js';
import type { Database } from '../db/database.js';
import { errorBody } from '../http/errors.js';
import { projectInfo } from './project.js';
import { ANSWERS, ID_ANSWERS, IdParams } from './schemas.js';


/**
 * A project's keys: API keys made, listed and revoked by name, and the publishable ingest key replaced.
 * A revoked or replaced key stops working on every node at once (their key caches are told).
 */
export async function keyRoutes(
  app: FastifyInstance,
  { db, projectIngestLimit, projectChanged }: { db: Database; projectIngestLimit: number | null; projectChanged: (change: ProjectChange) => Promise<void> },
) {
  const info = (k: { id: bigint; name: string; hash: string; createdAt: Date; lastUsedAt: Date | null }, currentHash: string): ApiKeyInfo => ({
    id: Number(k.id),
    name: k.name,
    createdAt: k.createdAt.getTime(),
    lastUsedAt: k.lastUsedAt?.getTime() ?? null,
    current: k.hash === currentHash,
  });

  app.get(
    '/project/keys',
    { schema: { summary: "The project's API keys (never the keys themselves: only their hashes are kept)", response: { 200: ApiKeyList, ...ANSWERS } } },
    async (request) => {
      const keys = await db.prisma.apiKey.findMany({ where: { projectId: request.projectId }, orderBy: { id: 'asc' } });
      return { keys: keys.map((k) => info(k, request.apiKeyHash)) };
    },
  );

  app.post<{ Body: ApiKeyCreate }>(
    '/project/keys',
    { schema: { summary: 'Make an API key; it is shown only in this answer', body: ApiKeyCreate, response: { 201: ApiKeyCreated, ...ANSWERS } } },
    async (request, reply) => {
      const apiKey = newKey('rk');
      const key = await db.prisma.apiKey.create({ data: { projectId: request.projectId, name: request.body.name.trim(), hash: hashKey(apiKey) } });
      return reply.code(201).send({ key: info(key, request.apiKeyHash), apiKey });
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/project/keys/:id',
    {
      schema: {
        summary: 'Revoke an API key: it stops working at once, on every server; the last key cannot be revoked',
        params: IdParams,
        response: { 204: Type.Null(), ...ID_ANSWERS, 409: ApiError },
      },
    },
    async (request, reply) => {
      const { projectId } = request;
      const outcome = await db.prisma.$transaction(async (tx) => {
        // Locked, so that two revocations at once cannot take the last two keys.
        const keys = await tx.$queryRaw<{ id: bigint }[]>`SELECT id FROM api_key WHERE project_id = ${projectId}::uuid FOR UPDATE`;
        if (!keys.some((k) => Number(k.id) === request.params.id)) return 404;
        if (keys.length === 1) return 409;
        await tx.apiKey.delete({ where: { id: request.params.id } });
        return 204;
      });
      if (outcome === 404) return reply.code(404).send(errorBody(404, `this project has no API key ${request.params.id}`));
      if (outcome === 409) return reply.code(409).send(errorBody(409, "this is the project's last API key: make another before revoking it"));
      await projectChanged({ projectId, deleted: false });
      return reply.code(204).send();
    },
  );

  app.post(
    '/project/ingest-key',
    {
      schema: {
        summary: 'Replace the publishable ingest key: the old one is refused at once, on every server, also by SDKs already connected',
        response: { 200: ProjectInfo, ...ANSWERS },
      },
    },
    async (request) => {
      const project = await db.prisma.project.update({ where: { id: request.projectId }, data: { ingestKey: newKey('ik') } });
      await projectChanged({ projectId: request.projectId, deleted: false });
      return projectInfo(project, projectIngestLimit);
    },
  );
}
