import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Time } from './schema-parts.js';

/**
 * What an SFU reports of its own rooms, and the call page's view of it: Janus's event handlers (the
 * sample handler's HTTP POSTs) today.
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
    Type.String({ description: "the SFU's id for the member (Janus's publisher id); null for a member that only subscribed" }),
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
  sfu: Type.Literal('janus'),
  members: Type.Array(SfuMember),
});
export type SfuView = Static<typeof SfuView>;
