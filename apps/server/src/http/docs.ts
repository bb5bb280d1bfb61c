import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The OpenAPI document, built from the routes' own schemas (`/api/v1/openapi.json`), and a browser for
 * it (`/api/docs`). Registered before the routes it describes.
 */
export const apiDocs = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        // 3.1: its schemas are JSON Schema, as the routes' are (`exclusiveMinimum: 0`, `type: ['number', 'null']`).
        openapi: '3.1.0',
        info: { title: 'rtcscope API', version: '1.0.0', description: 'Calls, streams, events, metric series and fairness of a project.' },
        components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
        security: [{ apiKey: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs' });
    app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'api-docs' },
);
