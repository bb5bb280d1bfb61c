import { createHash } from 'node:crypto';
import {
  ApiError,
  checkLiveKitWebhookEvent,
  JanusEventPost,
  LiveKitEventPost,
  MAX_LIVEKIT_WEBHOOK_BYTES,
  MAX_SFU_POST_BYTES,
  SfuEventsAccepted,
} from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { TokenVerifier } from 'livekit-server-sdk';
import { errorBody } from '../http/errors.js';
import { ANSWERS, ID_ANSWERS, Uuid } from '../http/schemas.js';
import { liveKitSecret } from '../identity/projects/livekit.js';
import { Allowance } from '../ingest/allowance.js';
import { MAX_AGE_MS, MAX_AHEAD_MS } from '../ingest/time-window.js';
import { eventsOf, readJanusEvents, type SfuEventRow } from './janus-events.js';
import { liveKitAtUs, liveKitEventsOf, readLiveKitEvents } from './livekit-events.js';
import { storeSfuEvents } from './store.js';

/**
 * SFU events a project may post per minute, on each node: a busy Janus posts a few dozen at a time, and
 * a room of hundreds joining at the hour some thousands; one key must not fill the database.
 */
export const SFU_EVENTS_PER_MINUTE = 6000;

/** Where a project's LiveKit server is to post its webhooks (its config's `webhook.urls`, after this server's address). */
export const liveKitWebhookPath = (projectId: string) => `/api/v1/sfu/livekit/webhook/${projectId}`;

const NOT_SIGNED =
  "not signed with this project's LiveKit key: set the key LiveKit's webhook.api_key names, and its secret, on the project page; nothing was stored";

/**
 * What SFUs report of their rooms, kept for the call page's "SFU's view" (docs/sfu.md):
 * - `POST /sfu/janus/events`: Janus's sample event handler (basic auth, an API key with the ingest scope);
 * - `POST /sfu/livekit/webhook/:projectId`: LiveKit's webhooks, each signed by LiveKit with the project's
 *   LiveKit key (a JWT whose claim holds the body's SHA-256), verified with livekit-server-sdk's receiver;
 * - `POST /sfu/livekit/events`: LiveKit's events from a relay that verified LiveKit's signature itself (the
 *   lab's runs), with an API key of the ingest scope.
 * Each refuses events outside the accepted window and floods past SFU_EVENTS_PER_MINUTE, stores an
 * event once however often it comes, and stores nothing of a post it refuses.
 */
export async function sfuRoutes(app: FastifyInstance) {
  const allowance = new Allowance(SFU_EVENTS_PER_MINUTE, 60);

  /** Stores a post's rows, or refuses the whole post (its events' times, `atUs`, outside the window; a flood). */
  const store = async (
    reply: FastifyReply,
    projectId: string,
    sfu: string,
    atUs: number[],
    fieldOf: (k: number) => string,
    rows: SfuEventRow[],
  ) => {
    const now = Date.now();
    const outside = atUs.findIndex((t) => t / 1000 < now - MAX_AGE_MS || t / 1000 > now + MAX_AHEAD_MS);
    if (outside >= 0) {
      return reply
        .code(400)
        .send(
          errorBody(
            400,
            `${fieldOf(outside)} is outside the accepted window (7 days back, 10 minutes ahead of the server's clock): check the SFU's clock; nothing of this post was stored`,
          ),
        );
    }
    if (!(await allowance.take(projectId, Math.max(1, atUs.length)))) {
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
    return { received: atUs.length, stored: await storeSfuEvents(app.db.pool, projectId, sfu, rows) };
  };

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
      const field = (k: number) => (Array.isArray(request.body) ? `body/${k}/timestamp` : 'body/timestamp');
      return store(
        reply,
        request.projectId,
        'janus',
        events.map((e) => e.timestamp),
        field,
        readJanusEvents(events),
      );
    },
  );

  app.post<{ Body: LiveKitEventPost }>(
    '/sfu/livekit/events',
    {
      bodyLimit: MAX_SFU_POST_BYTES,
      schema: {
        summary: "LiveKit's webhook events, from a relay that verified LiveKit's signature itself",
        description:
          "One event or several, as LiveKit posts them (protobuf's JSON), from a relay of your own that checked each webhook's signature (the lab's runs post so). Members joining and leaving and the tracks they publish and unpublish are kept; the rest is acknowledged and dropped. The same event is not stored twice; the window and flood limits of Janus's events apply.",
        body: LiveKitEventPost,
        response: { 200: SfuEventsAccepted, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const events = liveKitEventsOf(request.body);
      const field = (k: number) => (Array.isArray(request.body) ? `body/${k}/createdAt` : 'body/createdAt');
      return store(reply, request.projectId, 'livekit', events.map(liveKitAtUs), field, readLiveKitEvents(events));
    },
  );

  // LiveKit signs the body's bytes: this route reads them raw, then checks what they say.
  await app.register(async (raw) => {
    raw.addContentTypeParser(['application/webhook+json', 'application/json'], { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    raw.post<{ Params: { projectId: string }; Body: string }>(
      '/sfu/livekit/webhook/:projectId',
      {
        bodyLimit: MAX_LIVEKIT_WEBHOOK_BYTES,
        schema: {
          summary: "LiveKit's webhooks (room, participant and track events), as a project's LiveKit server posts them",
          description:
            "Point LiveKit's webhook.urls here, with webhook.api_key the key set on the project page (PUT /project/livekit). Each post is verified as LiveKit signs it: the Authorization header a JWT of that key, unexpired (LiveKit's are good for 5 minutes), whose sha256 claim is the body's; anything else is refused (401) with nothing stored. A post LiveKit sends again is not stored twice; bodies over 64 kB are refused (413).",
          params: Type.Object({ projectId: Uuid }),
          body: Type.String({ description: "the event as LiveKit posts it (protobuf's JSON, read raw: the signature covers its bytes)" }),
          response: { 200: SfuEventsAccepted, ...ID_ANSWERS, 413: ApiError },
        },
      },
      async (request, reply) => {
        const key = await liveKitSecret(app.db.prisma, request.params.projectId);
        if (!key) return reply.code(401).send(errorBody(401, NOT_SIGNED));
        // As livekit-server-sdk's WebhookReceiver checks it, without its parsing (a signed body that is not
        // LiveKit's events is the sender's mistake, said as such below).
        const claims = await new TokenVerifier(key.apiKey, key.secret).verify(request.headers.authorization ?? '').catch(() => null);
        if (!claims || claims.sha256 !== createHash('sha256').update(request.body).digest('base64'))
          return reply.code(401).send(errorBody(401, NOT_SIGNED));
        let json: unknown;
        try {
          json = JSON.parse(request.body);
        } catch {
          return reply.code(400).send(errorBody(400, 'the body is not JSON: nothing was stored'));
        }
        const event = checkLiveKitWebhookEvent(json);
        if (!event.ok) return reply.code(400).send(errorBody(400, `body/${event.error.field} ${event.error.message}: nothing was stored`));
        return store(
          reply,
          request.params.projectId,
          'livekit',
          [liveKitAtUs(event.value)],
          () => 'body/createdAt',
          readLiveKitEvents([event.value]),
        );
      },
    );
  });
}
