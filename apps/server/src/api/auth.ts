import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashKey, type KeyResolver } from '../auth/keys.js';
import { bearerToken } from '../http/bearer.js';
import { errorBody } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    projectId: string;
    /** The hash of the request's API key, which is how stored keys are known. */
    apiKeyHash: string;
  }
}

/** Every `/api/v1` request names its project by an API key: `Authorization: Bearer rk_…`. */
export const apiKeyAuth = fp(async (app: FastifyInstance, opts: { keys: KeyResolver }) => {
  app.decorateRequest('projectId', '');
  app.decorateRequest('apiKeyHash', '');
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const key = bearerToken(request.headers.authorization);
    const projectId = key ? await opts.keys.api(key) : null;
    if (!key || !projectId) return reply.code(401).send(errorBody(401, 'send a project API key as "Authorization: Bearer rk_…"'));
    request.projectId = projectId;
    request.apiKeyHash = hashKey(key);
  });
});
