import type { FastifyInstance } from 'fastify';

/** `GET /healthz` for load balancers: 200 while the database answers, 503 "database unavailable" while it does not. */
export async function health(app: FastifyInstance) {
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await app.db.pool.query('SELECT 1');
    } catch {
      return reply.code(503).send({ ok: false, error: 'database unavailable' });
    }
    return { ok: true };
  });
}
