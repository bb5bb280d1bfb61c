import { JanusEventPost, MAX_SFU_POST_BYTES, SfuEventsAccepted } from '@rtcscope/protocol';
import type { FastifyInstance } from 'fastify';
import { ANSWERS } from '../http/schemas.js';
import { eventsOf, readJanusEvents } from './janus-events.js';
import { storeSfuEvents } from './store.js';

/**
 * `POST /sfu/janus/events`: where a Janus server's sample event handler posts (janus.jcfg
 * `events.broadcast = true`; `backend` this URL, `backend_pwd` an API key with the ingest scope, as
 * basic auth: docs/sfu.md). The VideoRoom's members and their connections are kept for the call page.
 */
export async function sfuRoutes(app: FastifyInstance) {
  app.post<{ Body: JanusEventPost }>(
    '/sfu/janus/events',
    {
      bodyLimit: MAX_SFU_POST_BYTES,
      schema: {
        summary: "Janus's own view of its rooms, as its sample event handler posts it",
        description:
          "One event or a group of them (grouping = true), as Janus's sample event handler sends them. VideoRoom members joining, publishing, subscribing and leaving, and their connections' ups and hangups are kept; the rest is acknowledged and dropped. A retransmitted event is not stored twice.",
        body: JanusEventPost,
        response: { 200: SfuEventsAccepted, ...ANSWERS },
      },
    },
    async (request) => {
      const events = eventsOf(request.body);
      const stored = await storeSfuEvents(app.db.pool, request.projectId, 'janus', readJanusEvents(events));
      return { received: events.length, stored };
    },
  );
}
