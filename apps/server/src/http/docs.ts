import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The API docs' sections, each route in one by the first segment of its path under /api/v1. */
const TAGS: { name: string; description: string; segments: string[] }[] = [
  { name: 'calls', description: 'calls, their participants, streams, events, series and exports', segments: ['calls'] },
  { name: 'diagnosis', description: "the project's issues across calls", segments: ['issues'] },
  { name: 'insights', description: 'the fleet over a period, by segment', segments: ['insights'] },
  { name: 'recordings', description: 'importing webrtc-internals and rtcstats files', segments: ['recordings'] },
  { name: 'sfu', description: "an SFU's own view of its rooms", segments: ['sfu'] },
  { name: 'alerts', description: 'alert rules, notifications and webhook endpoints', segments: ['alerts'] },
  { name: 'lab', description: 'campaigns, runs and agents', segments: ['lab'] },
  { name: 'project', description: 'the project, its keys and retention', segments: ['project'] },
  { name: 'people', description: 'signing up and in, sessions, accounts', segments: ['auth', 'account'] },
  { name: 'organizations', description: 'members, invitations, projects, audit log, single sign-on', segments: ['orgs'] },
];
const tagOf = (url: string) => TAGS.find((t) => t.segments.includes(url.replace(/^\/api\/v1\//, '').split('/')[0]!))?.name;

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
            apiKey: {
              type: 'http',
              scheme: 'bearer',
              description:
                "a project API key (rk_…), with the scope the route needs (or as basic auth's password, for clients that send only that)",
            },
            session: {
              type: 'apiKey',
              in: 'cookie',
              name: 'rtcscope_session',
              description: "a person's session (__Host-rtcscope_session over TLS)",
            },
          },
        },
        security: [{ apiKey: [] }],
        tags: TAGS.map(({ name, description }) => ({ name, description })),
      },
      transform: ({ schema, url }) => {
        const tag = tagOf(url);
        return { schema: tag && schema ? { ...schema, tags: [tag] } : schema, url };
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs' });
    app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'api-docs' },
);
