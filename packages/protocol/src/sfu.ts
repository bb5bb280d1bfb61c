import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Time } from './schema-parts.js';

/**
 * What an SFU reports of its own rooms, and the call page's view of it: Janus's event handlers (the
 * sample handler's HTTP POSTs) and LiveKit's webhooks.
 */

/** Most events one POST may carry: Janus groups what it has queued, a few dozen at a time. */
export const MAX_SFU_EVENTS = 1000;
/** Most bytes one POST of them may be: a thousand compact events are well under it. */
export const MAX_SFU_POST_BYTES = 2 * 1024 * 1024;

const JanusId = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 64 })]);

/**
 * One event of Janus's event handlers (janus.jcfg `events`, any handler that posts JSON): its kind as a
 * bit (1 session, 2 handle, 16 WebRTC, 64 plugin, …), when in microseconds, and the session and handle it
 * concerns. What each kind carries in `event` is read by the server and the rest kept out.
 */
export const JanusEvent = Type.Object({
  type: Type.Integer({ minimum: 1 }),
  subtype: Type.Optional(Type.Integer()),
  timestamp: Type.Integer({ minimum: 0, maximum: 1e17, description: 'microseconds since the epoch' }),
  emitter: Type.Optional(Type.String({ maxLength: 200 })),
  session_id: Type.Optional(JanusId),
  handle_id: Type.Optional(JanusId),
  opaque_id: Type.Optional(Type.String({ maxLength: 200 })),
  event: Type.Record(Type.String(), Type.Unknown()),
});
export type JanusEvent = Static<typeof JanusEvent>;

/** A POST of Janus's sample event handler: one event, or a group of them (`grouping = true`). */
export const JanusEventPost = Type.Union([JanusEvent, Type.Array(JanusEvent, { maxItems: MAX_SFU_EVENTS })]);
export type JanusEventPost = Static<typeof JanusEventPost>;

const LiveKitText = Type.String({ maxLength: 256 });
/** LiveKit's int64s, which its JSON writes as strings ("1733224800"). */
const LiveKitInt = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,19}$' })]);

/**
 * One of LiveKit's webhook events as it posts them (protobuf's JSON, `application/webhook+json`): what
 * happened (`participant_joined`, `track_published`, …), when (`createdAt`, seconds), and the room,
 * participant and track it concerns. Fields the server does not read are allowed and dropped.
 */
export const LiveKitWebhookEvent = Type.Object({
  event: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.Optional(LiveKitText),
  createdAt: LiveKitInt,
  room: Type.Optional(Type.Object({ sid: Type.Optional(LiveKitText), name: Type.Optional(LiveKitText) })),
  participant: Type.Optional(
    Type.Object({ sid: Type.Optional(LiveKitText), identity: Type.Optional(LiveKitText), name: Type.Optional(LiveKitText) }),
  ),
  track: Type.Optional(
    Type.Object({
      sid: Type.Optional(LiveKitText),
      type: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Integer()])),
      mimeType: Type.Optional(LiveKitText),
      source: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
    }),
  ),
});
export type LiveKitWebhookEvent = Static<typeof LiveKitWebhookEvent>;

/** A post of LiveKit's events by a relay that verified LiveKit's signature itself (the lab's): one, or several. */
export const LiveKitEventPost = Type.Union([LiveKitWebhookEvent, Type.Array(LiveKitWebhookEvent, { maxItems: MAX_SFU_EVENTS })]);
export type LiveKitEventPost = Static<typeof LiveKitEventPost>;

/** Most bytes one of LiveKit's webhook posts may be: one event, a few kilobytes. */
export const MAX_LIVEKIT_WEBHOOK_BYTES = 64 * 1024;

/**
 * The LiveKit API key and secret a project's LiveKit server signs its webhooks with (its config's
 * `webhook.api_key` and that key's secret in `keys`).
 */
export const LiveKitSettings = Type.Object(
  {
    apiKey: Type.String({ minLength: 3, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }),
    apiSecret: Type.String({ minLength: 32, maxLength: 256, description: "the key's secret; never shown again" }),
  },
  { additionalProperties: false },
);
export type LiveKitSettings = Static<typeof LiveKitSettings>;

/** The project's LiveKit key as the API shows it: never the secret; where LiveKit is to post. */
export const LiveKitSettingsInfo = Type.Object({
  livekit: Type.Union([Type.Object({ apiKey: Type.String(), updatedAt: Time }), Type.Null()], {
    description: "null: none set (the project's LiveKit webhooks are refused)",
  }),
  webhookPath: Type.String({ description: "the path, under this server's address, for LiveKit's config's webhook.urls" }),
});
export type LiveKitSettingsInfo = Static<typeof LiveKitSettingsInfo>;

export const SfuEventsAccepted = Type.Object({
  received: Type.Integer({ description: 'events in the request' }),
  stored: Type.Integer({ description: 'events kept: those the view reads, each once (a retransmission is not stored again)' }),
});
export type SfuEventsAccepted = Static<typeof SfuEventsAccepted>;

/** One of the SFU's connections with a member: when the SFU saw it up and hung up, and why. */
export const SfuConnection = Type.Object({
  role: Type.Union([Type.Literal('publisher'), Type.Literal('subscriber')]),
  upAt: Nullable(Time),
  downAt: Nullable(Time),
  reason: Nullable(Type.String({ description: "why the SFU hung up, in its words (e.g. 'DTLS alert', 'ICE failed')" })),
});
export type SfuConnection = Static<typeof SfuConnection>;

export const SfuTrack = Type.Object({
  mid: Type.String(),
  kind: Type.String({ description: 'audio, video or data' }),
  codec: Nullable(Type.String()),
});

/** A room member as the SFU saw it, and the participant whose SDK reported it (null: none did). */
export const SfuMember = Type.Object({
  room: Type.String(),
  feed: Nullable(
    Type.String({
      description:
        "the SFU's id for the member (Janus's publisher id, LiveKit's participant identity); null for a member that only subscribed",
    }),
  ),
  display: Nullable(Type.String()),
  participantId: Nullable(
    Type.String({ description: "the call's participant that sent this feed's tracks; null when no SDK reported them" }),
  ),
  joinedAt: Nullable(Time),
  leftAt: Nullable(Time),
  published: Type.Array(SfuTrack),
  subscribedTo: Type.Array(Type.String(), {
    description: 'the feeds whose tracks this member received, as the SFU set its subscription up',
  }),
  connections: Type.Array(SfuConnection),
});
export type SfuMember = Static<typeof SfuMember>;

export const SfuView = Type.Object({
  sfu: Type.Union([Type.Literal('janus'), Type.Literal('livekit')]),
  members: Type.Array(SfuMember),
});
export type SfuView = Static<typeof SfuView>;
