import { ApiError, ApiKeyCreate, ApiKeyCreated, ApiKeyList, ProjectInfo } from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditRequest } from '../access/plugin.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import type { Database } from '../../db/database.js';
import { errorBody } from '../../http/errors.js';
import type { ProjectChange } from '../projects/changes.js';
import { replaceIngestKey } from '../projects/project.js';
import { ANSWERS, ID_ANSWERS, IdParams } from '../../http/schemas.js';

/** The key a request was made with, to mark among the project's; null for a person. */
const currentKey = (request: FastifyRequest) => (request.grant!.principal.kind === 'key' ? request.grant!.principal.keyId : null);

/**
 * A project's keys: API keys made (named, with scopes), listed and revoked, and the publishable ingest
 * key replaced. A revoked or replaced key stops working on every node at once (their key caches are
 * told). Each change is in the organization's audit log.
 */
export async function keyRoutes(
  app: FastifyInstance,
  {
    db,
    projectIngestLimit,
    projectChanged,
  }: { db: Database; projectIngestLimit: number | null; projectChanged: (change: ProjectChange) => Promise<void> },
) {
  app.get(
    '/project/keys',
    {
      schema: {
        summary: "The project's API keys (never the keys themselves: only their hashes are kept)",
        response: { 200: ApiKeyList, ...ANSWERS },
      },
    },
    async (request) => ({ keys: await listApiKeys(db.prisma, request.projectId, currentKey(request)) }),
  );
  app.post<{ Body: ApiKeyCreate }>(
    '/project/keys',
    {
      schema: {
        summary:
          'Make an API key with the scopes it needs (ingest, read, lab, admin; read only unless named); it is shown only in this answer',
        body: ApiKeyCreate,
        response: { 201: ApiKeyCreated, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const scopes = request.body.scopes ?? ['read'];
      const made = await db.prisma.$transaction(async (tx) => {
        const { principal } = request.grant!;
        const key = await createApiKey(
          tx,
          request.projectId,
          request.body.name,
          scopes,
          currentKey(request),
          principal.kind === 'person' ? principal.session.userId : null,
        );
        await auditRequest(tx, request, 'key.created', key.key.name, { scopes });
        return key;
      });
      return reply.code(201).send(made);
    },
  );
  app.delete<{ Params: { id: number } }>(
    '/project/keys/:id',
    {
      schema: {
        summary:
          "Revoke an API key: it stops working at once, on every server; a project's last key cannot be while its organization has no members",
        params: IdParams,
        response: { 204: Type.Null(), ...ID_ANSWERS, 409: ApiError },
      },
    },
    async (request, reply) => {
      const { projectId } = request;
      const outcome = await db.prisma.$transaction(async (tx) => {
        const done = await revokeApiKey(tx, projectId, request.params.id);
        if (typeof done === 'object') await auditRequest(tx, request, 'key.revoked', done.revoked);
        return done;
      });
      if (outcome === 'unknown') return reply.code(404).send(errorBody(404, `this project has no API key ${request.params.id}`));
      if (outcome === 'last')
        return reply
          .code(409)
          .send(
            errorBody(
              409,
              "this is the project's last API key and its organization has no members yet: make another key, or invite someone, first",
            ),
          );
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
      const project = await db.prisma.$transaction(async (tx) => {
        const replaced = await replaceIngestKey(tx, request.projectId, projectIngestLimit);
        await auditRequest(tx, request, 'ingest-key.replaced', replaced.name);
        return replaced;
      });
      await projectChanged({ projectId: request.projectId, deleted: false });
      return project;
    },
  );
}
