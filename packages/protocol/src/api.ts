import { type Static, Type } from '@sinclair/typebox';
import { CONNECTION_FIELDS, type FieldSpec, STREAM_FIELDS } from './fields.js';
import { IssueSeverity } from './diagnosis.js';
import { Metadata } from './messages.js';
import { Nullable, QueryTime, Time } from './schema-parts.js';
import { ScopeSchema } from './accounts.js';
import { SfuView } from './sfu.js';

/** REST `/api/v1` and live (socket.io `/live`) shapes shared by the server and the dashboard. */

export const CallSummary = Type.Object({
  id: Type.String({ description: 'the call id the SDK was given' }),
  state: Type.Union([Type.Literal('live'), Type.Literal('ended')]),
  startedAt: Time,
  endedAt: Type.Union([Time, Type.Null()]),
  lastSeenAt: Time,
  participants: Type.Array(Type.String()),
  quality: Type.Union(
    (['good', 'fair', 'poor', 'unknown'] as const).map((q) => Type.Literal(q)),
    {
      description:
        "the call's one verdict, the worse of its issues and its score: poor with a critical issue or a score under 2, fair with a warning or a score under 3, else good; unknown before anything was judged",
    },
  ),
  meanRttMs: Nullable(Type.Number()),
  meanLossPct: Nullable(Type.Number()),
  meanFps: Nullable(Type.Number()),
  metadata: Metadata,
  score: Nullable(
    Type.Number({ description: "the call's score, 1–5: the mean over its 5-s windows of its participants' mean (docs/diagnosis.md)" }),
  ),
  issues: Type.Array(
    Type.Object({
      type: Type.String(),
      severity: Type.Union(IssueSeverity.anyOf, { description: 'the worst of them' }),
      count: Type.Integer(),
    }),
    { description: 'the issues the diagnosis found, by type' },
  ),
});
export type CallSummary = Static<typeof CallSummary>;

export const CallList = Type.Object({ calls: Type.Array(CallSummary) });
export type CallList = Static<typeof CallList>;

/** What the insights break participants down by: a client part, the path, or a metadata key (`metadata:appVersion`). */
export const INSIGHT_BREAKDOWNS = ['none', 'browser', 'browserVersion', 'os', 'deviceType', 'sdkVersion', 'country', 'path'] as const;
/** An insights breakdown: one of INSIGHT_BREAKDOWNS, or metadata:KEY. */
export const InsightBreakdown = Type.String({
  pattern: `^(${INSIGHT_BREAKDOWNS.join('|')}|metadata:[A-Za-z0-9_.-]{1,64})$`,
  description: `${INSIGHT_BREAKDOWNS.join(', ')}, or metadata:KEY (a key the app sets, e.g. metadata:appVersion); insights default: none`,
});

/** Production's live traffic (what the SDK sent, the lab's runs apart), the lab's runs, calls made from imported recordings, or all. */
export const CALL_SOURCES = ['live', 'lab', 'imported', 'all'] as const;
export const CallSource = Type.Union(CALL_SOURCES.map((s) => Type.Literal(s)));
export type CallSource = Static<typeof CallSource>;

export const CallListQuery = Type.Object(
  {
    from: Type.Optional(QueryTime('calls active at or after')),
    to: Type.Optional(QueryTime('calls started at or before')),
    state: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('ended')])),
    participant: Type.Optional(Type.String({ maxLength: 128 })),
    q: Type.Optional(Type.String({ maxLength: 128, description: 'text in the call or participant id' })),
    lab: Type.Optional(Type.Boolean({ description: 'true: only calls run by the lab (metadata lab = true); false: none of them' })),
    source: Type.Optional(
      Type.Union(CallSource.anyOf, {
        default: 'all',
        description:
          "live: calls the SDK sent, the lab's apart; lab: the lab's runs; imported: calls made from imported recordings, from and to then bound when they were imported (their recorded dates may be years back); all: every one",
      }),
    ),
    issue: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-z-]+$',
        description: 'only calls with an issue of this type, e.g. downlink-loss',
      }),
    ),
    maxScore: Type.Optional(
      Type.Number({ minimum: 1, maximum: 5, description: 'only ended calls whose score is at most this (a call is scored when it ends)' }),
    ),
    breakdown: Type.Optional(InsightBreakdown),
    segment: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          "with breakdown: only calls with a participant of this segment who joined between from and to (the insights' drill-down; empty: the unknown segment); with issue, one who had it",
      }),
    ),
    sort: Type.Optional(
      Type.Union([Type.Literal('recent'), Type.Literal('score')], {
        default: 'recent',
        description:
          'recent: live calls first, then by last activity; score: ended calls worst score first, then calls without a score yet (live ones among them) by last activity',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type CallListQuery = Static<typeof CallListQuery>;

export const StreamInfo = Type.Object({
  id: Type.Integer(),
  direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
  kind: Type.Union([Type.Literal('audio'), Type.Literal('video')]),
  ssrc: Type.Integer(),
  rid: Type.Union([Type.String(), Type.Null()]),
  trackId: Type.Union([Type.String(), Type.Null()], {
    description:
      "the track it carries (a sent stream's media source, a received one's msid): through an SFU, which rewrites SSRCs, a subscriber's copy has its publisher's",
  }),
  from: Type.Union([Type.String(), Type.Null()], {
    description:
      "a received stream's sender: the participant whose sent stream it is (by SSRC peer to peer, by track id through an SFU); null when no participant's sent stream matches",
  }),
  codec: Type.Union([Type.String(), Type.Null()]),
  implementation: Type.Union([Type.String(), Type.Null()]),
  contentType: Type.Union([Type.Literal('screenshare'), Type.Null()], {
    description: "'screenshare' where the browser says the video is a shared screen",
  }),
  outOfRange: Type.Integer({
    description: "values of the stream's samples that were outside the field table (a browser's quirk) and were stored as null",
  }),
  state: Type.Union([Type.Literal('never-active'), Type.Literal('active'), Type.Literal('paused'), Type.Literal('ended')], {
    description:
      "what it carried, at the end of what is stored: 'never-active' (nothing ever came: an SFU's placeholder, a receive-only transceiver, a feed that publishes nothing), 'paused' (silent at its end while its participant still carried media the same way: muted or disabled by its sender, no more forwarded by the SFU), 'ended' (reported no more while the call went on: removed by a renegotiation, its connection closed), 'active' (carried media to its end, or went silent with everything its participant had: an outage, told by the issues). A stream that is not active is neither judged nor scored while it carries nothing",
  }),
  activeFrom: Type.Union([Time, Type.Null()], { description: 'its first sample that carried media (payload or frames)' }),
  activeUntil: Type.Union([Time, Type.Null()], { description: 'its last sample that carried media' }),
});
export type StreamInfo = Static<typeof StreamInfo>;

export const ConnectionInfo = Type.Object({
  id: Type.Integer(),
  key: Type.String(),
  session: Type.String(),
  localCandidateType: Type.Union([Type.String(), Type.Null()]),
  localProtocol: Type.Union([Type.String(), Type.Null()]),
  remoteCandidateType: Type.Union([Type.String(), Type.Null()]),
  remoteProtocol: Type.Union([Type.String(), Type.Null()]),
  media: Type.Union(
    [
      Type.Array(
        Type.Object({
          kind: Type.String({ description: "'audio', 'video', or 'application' (data channels)" }),
          direction: Type.Union([Type.String(), Type.Null()], {
            description: "'sendrecv', 'sendonly', 'recvonly', 'inactive'; null for data channels or where a recording did not say",
          }),
        }),
      ),
      Type.Null(),
    ],
    {
      description:
        "what the connection last negotiated, its media sections in order (null where its SDK or recording did not say). One with no audio or video (a data channel alone: an analytics service's probe in the page) is not the call's media: its set-up and ICE raise no issue",
    },
  ),
  streams: Type.Array(StreamInfo),
});
export type ConnectionInfo = Static<typeof ConnectionInfo>;

const Text = Type.Union([Type.String(), Type.Null()]);

/** What a participant's client is, from its user agent, client hints and SDK (docs/privacy.md). */
export const ClientInfo = Type.Object({
  browser: Text,
  browserVersion: Type.Union([Type.String(), Type.Null()], { description: 'the major version' }),
  os: Text,
  deviceType: Type.Union([Type.Literal('desktop'), Type.Literal('mobile'), Type.Literal('tablet'), Type.Literal('tv'), Type.Null()]),
  sdkVersion: Text,
  country: Type.Union([Type.String(), Type.Null()], {
    description: "ISO 3166 alpha-2 country of the client's public IPv4 address (the address is not kept)",
  }),
});
export type ClientInfo = Static<typeof ClientInfo>;

export const ParticipantInfo = Type.Object({
  id: Type.String(),
  joinedAt: Time,
  leftAt: Type.Union([Time, Type.Null()]),
  lastSeenAt: Time,
  metadata: Metadata,
  client: ClientInfo,
  connections: Type.Array(ConnectionInfo),
});
export type ParticipantInfo = Static<typeof ParticipantInfo>;

export const CallDetail = Type.Object({
  call: CallSummary,
  participants: Type.Array(ParticipantInfo),
  sfu: Type.Union([SfuView, Type.Null()], {
    description:
      "the SFU's own view of the call's room (its event handler's reports), when it sent any: members whose SDK never reported show here",
  }),
});
export type CallDetail = Static<typeof CallDetail>;

export const CallEvent = Type.Object({
  ts: Time,
  participantId: Type.String(),
  connectionId: Type.Union([Type.Integer(), Type.Null()]),
  type: Type.String(),
  detail: Type.Union([Type.String(), Type.Null()]),
});
export type CallEvent = Static<typeof CallEvent>;
export const CallEvents = Type.Object({ events: Type.Array(CallEvent) });
export type CallEvents = Static<typeof CallEvents>;

/** One stream's or connection's values at one time, in STREAM_FIELDS / CONNECTION_FIELDS order. */
export const Point = Type.Object({
  id: Type.Integer({ description: 'stream or connection id' }),
  ts: Time,
  // `type: [number, null]` rather than anyOf: the response serializer writes it without trying branches.
  v: Type.Array(Type.Unsafe<number | null>({ type: ['number', 'null'] }), {
    description: "values in the order of the series' fields (stream points) or connectionFields (connection points); null: not measured",
  }),
});
export type Point = Static<typeof Point>;

export const SeriesQuery = Type.Object(
  {
    from: Type.Optional(QueryTime('default: call start')),
    to: Type.Optional(QueryTime('default: call end or now')),
    maxPoints: Type.Optional(
      Type.Integer({ minimum: 10, maximum: 10_000, default: 1200, description: 'per stream; wider ranges are averaged into buckets' }),
    ),
    fields: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]+(,[A-Za-z]+)*$',
        maxLength: 400,
        description: 'stream fields to return, comma-separated (default: all), e.g. kbps,fps',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SeriesQuery = Static<typeof SeriesQuery>;

const fieldList = (specs: readonly FieldSpec[]) => specs.map((f) => `${f.name} (${f.unit})`).join(', ');

export const Series = Type.Object({
  fields: Type.Array(Type.String(), {
    description: `the stream fields of each stream point's v, in order: those asked for, or all of ${fieldList(STREAM_FIELDS)}`,
  }),
  connectionFields: Type.Array(Type.String(), {
    description: `the fields of each connection point's v, in order: ${fieldList(CONNECTION_FIELDS)}`,
  }),
  from: Time,
  to: Time,
  bucketMs: Type.Integer({ description: '1000 means raw 1 s samples; larger means averaged buckets' }),
  streams: Type.Array(Point),
  connections: Type.Array(Point),
});
export type Series = Static<typeof Series>;

export const FairnessPoint = Type.Object({
  ts: Time,
  /** Jain's index over the participants' total sending rates in this interval. */
  send: Nullable(Type.Number()),
  /** Jain's index over the participants' total receiving rates. */
  receive: Nullable(Type.Number()),
  sendKbps: Type.Record(Type.String(), Type.Number()),
  receiveKbps: Type.Record(Type.String(), Type.Number()),
});
export type FairnessPoint = Static<typeof FairnessPoint>;
export const Fairness = Type.Object({ bucketMs: Type.Integer(), points: Type.Array(FairnessPoint) });
export type Fairness = Static<typeof Fairness>;

const RetentionDays = Type.Union([Type.Literal(7), Type.Literal(30), Type.Literal(90), Type.Literal(365)], {
  description: 'days raw samples are kept (10-second rollups 4 times as long, at most 730); applies to streams that start after a change',
});

export const ProjectInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  ingestKey: Type.String({ description: 'publishable: it can only write samples' }),
  retentionDays: RetentionDays,
  ingestLimit: Type.Union([Type.Integer(), Type.Null()], {
    description: 'stream and connection samples a second the project may send to each server node (averaged over 10 s); null: no limit',
  }),
});
export type ProjectInfo = Static<typeof ProjectInfo>;

export const ProjectUpdate = Type.Object({ retentionDays: RetentionDays }, { additionalProperties: false });
export type ProjectUpdate = Static<typeof ProjectUpdate>;

export const ApiKeyInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Time,
  lastUsedAt: Nullable(Type.Number({ description: 'epoch milliseconds, to within a minute; null: never used' })),
  scopes: Type.Array(ScopeSchema),
  current: Type.Boolean({ description: 'the key this request was made with' }),
});
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;
export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKeyInfo) });
export type ApiKeyList = Static<typeof ApiKeyList>;
export const ApiKeyCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'who or what uses it (not only spaces)' }),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        default: ['read'],
        description: 'what it may do; read only unless named',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;
export const ApiKeyCreated = Type.Object({
  key: ApiKeyInfo,
  apiKey: Type.String({ description: 'shown only this once; only its hash is kept' }),
});
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

export const ApiError = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
});

/** Live socket.io `/live`: what a dashboard receives. */
export interface LivePoints {
  callId: string;
  participantId: string;
  streams: Point[];
  connections: Point[];
  /** Streams and connections first seen in this push, so a chart can label them without a refetch. */
  newStreams: (StreamInfo & { connectionId: number })[];
  newConnections: (Omit<ConnectionInfo, 'streams' | 'media'> & { participantId: string })[];
  events: CallEvent[];
}

/** A live call's latest activity (at most every 5 s a call), for the calls list. */
export interface LiveActivity {
  callId: string;
  lastSeenAt: number;
}

/** The lab's campaigns, runs or agents changed (the lab room; `campaignId` 0: agents). */
export interface LabChanged {
  campaignId: number;
  runId?: number;
}

/** A running run's progress, as its agent reported it. */
export interface LabProgress {
  campaignId: number;
  runId: number;
  fraction: number;
  message: string;
  callId: string | null;
}

export interface LiveSubscribe {
  /** Subscribe to the calls list (summaries of live calls as they change). */
  calls?: boolean;
  /** Subscribe to one call's points. */
  callId?: string;
  /** Subscribe to lab campaigns, runs and agents of the project. */
  lab?: boolean;
  /** Subscribe to the project's alert notifications. */
  alerts?: boolean;
}

export const RecordingQuery = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255, description: "the recording's file name, shown with its call" }) },
  { additionalProperties: false },
);
export type RecordingQuery = Static<typeof RecordingQuery>;

/** What importing a recording made (docs/recordings.md). */
export const RecordingImported = Type.Object({
  callId: Type.String({ description: 'the call the recording became: open it at /calls/{callId}' }),
  duplicate: Type.Boolean({ description: 'the same file was imported before: this is its call, and nothing was stored now' }),
  format: Type.Union([Type.Literal('webrtc-internals'), Type.Literal('rtcstats')]),
  browser: Type.Union([Type.String(), Type.Null()], { description: 'the recording browser, from its user agent, where it says' }),
  samples: Type.Integer({ description: 'stream and connection samples the recording gave' }),
});
export type RecordingImported = Static<typeof RecordingImported>;

/** The summary fields the insights give distributions of, with their units. */
export const INSIGHT_METRICS = {
  score: '1–5',
  rttMs: 'ms',
  lossPct: '%',
  jitterMs: 'ms',
  sentKbps: 'kbit/s',
  receivedKbps: 'kbit/s',
  fps: 'frames/s',
  height: 'px',
  freezes: 'count',
  setupMs: 'ms',
} as const;
export type InsightMetric = keyof typeof INSIGHT_METRICS;

export const InsightsQuery = Type.Object(
  {
    from: Type.Optional(QueryTime('participants who joined at or after (default: 7 days ago)')),
    to: Type.Optional(QueryTime('and before (default: now)')),
    breakdown: Type.Optional(InsightBreakdown),
    bucket: Type.Optional(
      Type.Union([Type.Literal('hour'), Type.Literal('day')], { default: 'day', description: 'the time buckets of overTime, in UTC' }),
    ),
    source: Type.Optional(
      Type.Union(CallSource.anyOf, {
        default: 'live',
        description:
          "live: production's fleet as the SDK sent it (an imported recording from 2021 or a lab run does not move it); lab: the lab's runs; imported: calls made from imported recordings, by their recorded dates; all: every one",
      }),
    ),
  },
  { additionalProperties: false },
);
export type InsightsQuery = Static<typeof InsightsQuery>;

/** Over participants: the mean and percentiles (p10 is the worse tail of a score, p90 that of a delay or loss). */
const Distribution = Type.Object({
  n: Type.Integer(),
  mean: Nullable(Type.Number()),
  p10: Nullable(Type.Number()),
  p50: Nullable(Type.Number()),
  p90: Nullable(Type.Number()),
  p99: Nullable(Type.Number()),
});

const InsightSegment = Type.Object({
  segment: Type.Union([Type.String(), Type.Null()], { description: 'the breakdown value; null: not known' }),
  calls: Type.Integer(),
  participants: Type.Integer(),
  minutes: Type.Number({ description: 'participant-minutes' }),
  setupFailures: Type.Integer({
    description: 'participants who never connected (no connected state, no media) once they left or had waited 30 s',
  }),
  metrics: Type.Record(Type.String(), Distribution, { description: 'per metric (score, rttMs, …): over participants, each its call mean' }),
  issues: Type.Record(
    Type.String(),
    Type.Object({
      callsShare: Type.Number({ description: 'share of calls (0–1) with a participant who had it' }),
      minutesShare: Type.Number({ description: 'share of participant-minutes (0–1) of participants who had it' }),
    }),
  ),
  verdicts: Type.Object(
    { good: Type.Number(), fair: Type.Number(), poor: Type.Number(), unknown: Type.Number() },
    {
      description:
        "share of calls (0–1) of each verdict, the calls list's (a call with participants in two segments counts in each); unknown: not judged, or summarized before verdicts were kept",
    },
  ),
});

export const Insights = Type.Object({
  from: Time,
  to: Time,
  breakdown: Type.String(),
  bucket: Type.String(),
  segments: Type.Array(InsightSegment, {
    description: 'most participants first; an unknown segment (null) after the known ones of its size',
  }),
  overTime: Type.Array(
    Type.Object({
      ts: Time,
      segment: Type.Union([Type.String(), Type.Null()]),
      participants: Type.Integer(),
      score: Distribution,
    }),
  ),
});
export type Insights = Static<typeof Insights>;
