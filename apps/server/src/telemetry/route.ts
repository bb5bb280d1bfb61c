import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../http/credentials.js';
import { errorBody } from '../http/errors.js';
import { compactionBacklog } from '../samples/compaction.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `GET /metrics` for Prometheus, behind the operator's token (`Authorization: Bearer <METRICS_TOKEN>`,
 * compared in constant time): a node's figures are the operator's, not a customer's. Without a token
 * configured the route says how to turn it on. Gauges are read when scraped: the sockets of `/ingest`
 * and `/live`, the database pool, compaction's backlog.
 */
export async function metricsRoute(app: FastifyInstance, opts: { token: string | undefined }): Promise<void> {
  const { telemetry, io, db } = app;
  telemetry.watch({ ingest: io.of('/ingest'), live: io.of('/live') }, db.pool, () => compactionBacklog(db.pool));
  const expected = opts.token === undefined ? null : digest(opts.token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!expected) return reply.code(404).send(errorBody(404, 'metrics are off on this server: set METRICS_TOKEN to serve them'));
    const given = bearerToken(request.headers.authorization) ?? '';
    if (!timingSafeEqual(digest(given), expected))
      return reply.code(401).send(errorBody(401, 'send the METRICS_TOKEN as "Authorization: Bearer …"'));
    return reply.type(telemetry.registry.contentType).send(await telemetry.registry.metrics());
  });
}
