import { JanusEventPost, MAX_SFU_POST_BYTES, SfuEventsAccepted } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../http/errors.js';
import { ANSWERS } from '../http/schemas.js';
import { Allowance } from '../ingest/allowance.js';
import { MAX_AGE_MS, MAX_AHEAD_MS } from '../ingest/time-window.js';
import { eventsOf, readJanusEvents } from './janus-events.js';
import { storeSfuEvents } from './store.js';

/**
 * SFU events a project may post per minute, on each node: a busy Janus posts a few dozen at a time, and
 * a room of hundreds joining at the hour some thousands; one key must not fill the database.
 */
export const SFU_EVENTS_PER_MINUTE = 6000;

/**
 * `POST /sfu/janus/events`: where a Janus server's sample event handler posts (janus.jcfg
 * `events.broadcast = true`; `backend` this URL, `backend_pwd` an API key with the ingest scope, as
 * basic auth: docs/sfu.md). The VideoRoom's members and their connections are kept for the call page.
 */
export async function sfuRoutes(app: FastifyInstance) {
  const allowance = new Allowance(SFU_EVENTS_PER_MINUTE, 60);
  app.post<{ Body: JanusEventPost }>(
    '/sfu/janus/events',
    {
      bodyLimit: MAX_SFU_POST_BYTES,
      schema: {
        summary: "Janus's own view of its rooms, as its sample event handler posts it",
        description:
          "One event or a group of them (grouping = true), as Janus's sample event handler sends them. VideoRoom members joining, publishing, subscribing and leaving, and their connections' ups and hangups are kept; the rest is acknowledged and dropped. A retransmitted event is not stored twice. Events dated more than 7 days back or 10 minutes ahead are refused (400), and past 6,000 events a minute per project a post is refused (429); events are kept as long as the project's samples.",
        body: JanusEventPost,
        response: { 200: SfuEventsAccepted, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const events = eventsOf(request.body);
      const now = Date.now();
      const outside = events.findIndex((e) => e.timestamp / 1000 < now - MAX_AGE_MS || e.timestamp / 1000 > now + MAX_AHEAD_MS);
      if (outside >= 0) {
        const field = Array.isArray(request.body) ? `body/${outside}/timestamp` : 'body/timestamp';
        return reply
          .code(400)
          .send(
            errorBody(
              400,
              `${field} is outside the accepted window (7 days back, 10 minutes ahead of the server's clock): check the SFU's clock; nothing of this post was stored`,
            ),
          );
      }
      if (!(await allowance.take(request.projectId, Math.max(1, events.length)))) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(
            errorBody(
              429,
              `the project posted more than ${SFU_EVENTS_PER_MINUTE} SFU events in the last minute: nothing of this post was stored; post it again in a minute`,
            ),
          );
      }
      const stored = await storeSfuEvents(app.db.pool, request.projectId, 'janus', readJanusEvents(events));
      return { received: events.length, stored };
    },
  );
}
