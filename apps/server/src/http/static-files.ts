import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from './errors.js';
import { sdkHeaders } from './security-headers.js';

const here = dirname(fileURLToPath(import.meta.url));
const WEB_DIST = join(here, '../../../web/dist');
const SDK_DIST = join(here, '../../../../packages/sdk/dist');

/**
 * The SDK's builds (`/sdk/`) and the dashboard, where they are built. The dashboard routes in the
 * browser: any other GET that is not the API gets the app; anything else unknown is a 404.
 */
export const staticFiles = fp(
  async (app: FastifyInstance) => {
    if (existsSync(SDK_DIST))
      await app.register(fastifyStatic, { root: SDK_DIST, prefix: '/sdk/', decorateReply: false, setHeaders: sdkHeaders });
    const dashboard = existsSync(WEB_DIST);
    if (dashboard) await app.register(fastifyStatic, { root: WEB_DIST, prefix: '/', wildcard: false });
    app.setNotFoundHandler((request, reply) => {
      if (dashboard && request.method === 'GET' && !request.url.startsWith('/api/')) return reply.sendFile('index.html');
      return reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url}`));
    });
  },
  { name: 'static-files' },
);
