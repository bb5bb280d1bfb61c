import { type Static, Type } from '@sinclair/typebox';
import { CONNECTION_FIELDS, EVENT_TYPES, ID_PATTERN, LIMITS, SAMPLE_HEAD, STREAM_FIELDS } from './fields.js';

const Id = Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength, pattern: ID_PATTERN });

export const Metadata = Type.Record(
  // A Record's key schema becomes a pattern: its length is said there, and other keys refused.
  Type.String({ pattern: '^[\\s\\S]{1,64}$' }),
  Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]),
  { maxProperties: LIMITS.maxMetadataKeys, additionalProperties: false, description: 'keys of 1 to 64 characters' },
);
export type Metadata = Static<typeof Metadata>;

/** socket.io handshake `auth` of an SDK connection. */
export const IngestHandshake = Type.Object(
  {
    /** 2: rows packed (`PackedBatch`); 1: rows as JSON arrays (`Batch`), as SDKs before 2026-11-29 send them. */
    v: Type.Union([Type.Literal(1), Type.Literal(2)]),
    key: Type.String({ minLength: 8, maxLength: 128 }),
    callId: Id,
    participantId: Id,
    /** Random per monitor instance: a page reload is a new session of the same participant. */
    session: Id,
    metadata: Type.Optional(Metadata),
    sdk: Type.Optional(Type.String({ maxLength: 64 })),
    /** A pre-call test (the SDK's runPrecallTest): its call is stored as one, listed apart from calls. */
    kind: Type.Optional(Type.Literal('precall')),
  },
  { additionalProperties: false },
);
export type IngestHandshake = Static<typeof IngestHandshake>;

const CandidateType = Type.Union(['host', 'srflx', 'prflx', 'relay'].map((t) => Type.Literal(t)));
const Protocol = Type.Union(['udp', 'tcp'].map((t) => Type.Literal(t)));

/** Declares (or re-declares after a change) a peer connection under a small per-session index. */
export const ConnectionDescriptor = Type.Object(
  {
    i: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    key: Id,
    localCandidateType: Type.Optional(CandidateType),
    localProtocol: Type.Optional(Protocol),
    remoteCandidateType: Type.Optional(CandidateType),
    remoteProtocol: Type.Optional(Protocol),
  },
  { additionalProperties: false },
);
export type ConnectionDescriptor = Static<typeof ConnectionDescriptor>;

/** Declares (or re-declares after a codec change) a stream under a small per-session index. */
export const StreamDescriptor = Type.Object(
  {
    i: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    conn: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
    kind: Type.Union([Type.Literal('audio'), Type.Literal('video')]),
    ssrc: Type.Integer({ minimum: 0, maximum: 0xffffffff }),
    rid: Type.Optional(Type.String({ maxLength: 16 })),
    trackId: Type.Optional(Type.String({ maxLength: LIMITS.maxIdLength })),
    codec: Type.Optional(Type.String({ maxLength: 64 })),
    implementation: Type.Optional(Type.String({ maxLength: 128 })),
    /** The browser's `contentType`: a shared screen sends frames as its content changes. */
    contentType: Type.Optional(Type.Literal('screenshare')),
  },
  { additionalProperties: false },
);
export type StreamDescriptor = Static<typeof StreamDescriptor>;

const Cell = Type.Union([Type.Number(), Type.Null()]);
const row = (fields: number) => Type.Array(Cell, { minItems: SAMPLE_HEAD.length, maxItems: SAMPLE_HEAD.length + fields });

/** `[seq, dtMs, connIndex | null, type, detail?]` */
export const EventRow = Type.Union([
  Type.Tuple([Type.Integer({ minimum: 0 }), Type.Number(), Cell, Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))]),
  Type.Tuple([
    Type.Integer({ minimum: 0 }),
    Type.Number(),
    Cell,
    Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    Type.String({ maxLength: LIMITS.maxDetailLength }),
  ]),
]);

export const Batch = Type.Object(
  {
    /** Batch number within the session, for logs and acks. */
    n: Type.Integer({ minimum: 0 }),
    /** Base time, epoch milliseconds; rows carry offsets from it. */
    t0: Type.Number({ minimum: 1e12, maximum: 1e13 }),
    conns: Type.Optional(Type.Array(ConnectionDescriptor, { maxItems: LIMITS.maxConnectionsPerBatch })),
    streams: Type.Optional(Type.Array(StreamDescriptor, { maxItems: LIMITS.maxStreamsPerBatch })),
    /** Stream samples: `[streamIndex, seq, dtMs, ...STREAM_FIELDS]`. */
    s: Type.Optional(Type.Array(row(STREAM_FIELDS.length))),
    /** Connection samples: `[connIndex, seq, dtMs, ...CONNECTION_FIELDS]`. */
    c: Type.Optional(Type.Array(row(CONNECTION_FIELDS.length))),
    e: Type.Optional(Type.Array(EventRow, { maxItems: LIMITS.maxBatchEvents })),
    metadata: Type.Optional(Metadata),
    /** The participant closed its monitor: no more samples will come from this session. */
    bye: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
export type Batch = Static<typeof Batch>;

/**
 * Wire version 2's batch: the batch number, base time and sample rows packed in `p` (base64 of
 * `packed.ts`'s bytes); the rest as in version 1.
 */
export const PackedBatch = Type.Object(
  {
    p: Type.String({ maxLength: 1_000_000 }),
    conns: Batch.properties.conns,
    streams: Batch.properties.streams,
    e: Batch.properties.e,
    metadata: Batch.properties.metadata,
    bye: Batch.properties.bye,
  },
  { additionalProperties: false },
);
export type PackedBatch = Static<typeof PackedBatch>;
export type EventRow = Static<typeof EventRow>;

export type IngestAck =
  | {
      ok: true;
      n: number;
      stored: number;
      /** Values outside the field table, stored as null: how many, and the first few by field. */
      outOfRange?: { count: number; fields: { field: string; message: string }[] };
    }
  | { ok: false; n: number | null; retry: boolean; error: { code: string; field?: string; message: string } };
