import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashKey, type KeyResolver } from '../auth/keys.js';

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
    const header = request.headers.authorization ?? '';
    const key = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    const projectId = key ? await opts.keys.api(key) : null;
    if (!projectId) {
      return reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'send a project API key as "Authorization: Bearer rk_…"' });
    }
    request.projectId = projectId;
    request.apiKeyHash = hashKey(key);
  });
});
