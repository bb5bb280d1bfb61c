import { ApiError, ApiKeyCreate, ApiKeyCreated, ApiKeyList, ProjectInfo } from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createApiKey, listApiKeys, revokeApiKey } from '../auth/api-keys.js';
import type { Database } from '../db/database.js';
import { errorBody } from '../http/errors.js';
import type { ProjectChange } from '../projects/changes.js';
import { replaceIngestKey } from '../projects/project.js';
import { ANSWERS, ID_ANSWERS, IdParams } from './schemas.js';

/**
 * A project's keys: API keys made, listed and revoked by name, and the publishable ingest key replaced.
 * A revoked or replaced key stops working on every node at once (their key caches are told).
 */
export async function keyRoutes(
  app: FastifyInstance,
  { db, projectIngestLimit, projectChanged }: { db: Database; projectIngestLimit: number | null; projectChanged: (change: ProjectChange) => Promise<void> },
) {
  app.get(
    '/project/keys',
    { schema: { summary: "The project's API keys (never the keys themselves: only their hashes are kept)", response: { 200: ApiKeyList, ...ANSWERS } } },
    async (request) => ({ keys: await listApiKeys(db, request.projectId, request.apiKeyHash) }),
  );

  app.post<{ Body: ApiKeyCreate }>(
    '/project/keys',
    { schema: { summary: 'Make an API key; it is shown only in this answer', body: ApiKeyCreate, response: { 201: ApiKeyCreated, ...ANSWERS } } },
    async (request, reply) => reply.code(201).send(await createApiKey(db, request.projectId, request.body.name, request.apiKeyHash)),
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
      const outcome = await revokeApiKey(db, projectId, request.params.id);
      if (outcome === 'unknown') return reply.code(404).send(errorBody(404, `this project has no API key ${request.params.id}`));
      if (outcome === 'last') return reply.code(409).send(errorBody(409, "this is the project's last API key: make another before revoking it"));
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
      const project = await replaceIngestKey(db, request.projectId, projectIngestLimit);
      await projectChanged({ projectId: request.projectId, deleted: false });
      return project;
    },
  );
}
