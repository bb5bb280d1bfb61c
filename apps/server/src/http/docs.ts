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
        info: {
          title: 'rtcscope API',
          version: '1.0.0',
          description:
            "Calls, streams, events, metric series, diagnosis, insights, alerts and the lab of a project; people, organizations and the audit log. Programs send a project API key with the scopes a route needs; the dashboard sends a person's session cookie, an `x-csrf-token` header (from `GET /auth/me`) on every change, and names the project of project routes in the `rtcscope-project` header.",
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'http', scheme: 'bearer', description: 'a project API key (rk_…), with the scope the route needs' },
            session: { type: 'apiKey', in: 'cookie', name: 'rtcscope_session', description: "a person's session (__Host-rtcscope_session over TLS)" },
          },
        },
        security: [{ apiKey: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs' });
    app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'api-docs' },
);
