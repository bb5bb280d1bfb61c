import { type Static, Type } from '@sinclair/typebox';
import { Nullable, QueryTime, Time } from './schema-parts.js';

/** REST and live shapes of a call's diagnosis (packages/diagnosis: docs/diagnosis.md). */

export const IssueSeverity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]);
export type IssueSeverity = Static<typeof IssueSeverity>;

export const CallIssue = Type.Object({
  id: Type.Integer(),
  callId: Type.String(),
  type: Type.String({ description: 'e.g. uplink-congestion, downlink-loss, video-freeze, one-way-media' }),
  category: Type.Union([Type.Literal('network'), Type.Literal('endpoint'), Type.Literal('media'), Type.Literal('connectivity')]),
  severity: IssueSeverity,
  participantId: Type.String(),
  streamId: Type.Union([Type.Integer(), Type.Null()]),
  connectionId: Type.Union([Type.Integer(), Type.Null()]),
  direction: Type.Union([Type.Literal('in'), Type.Literal('out'), Type.Null()]),
  start: Time,
  end: Type.Union([Time, Type.Null()], { description: 'null while the issue is open' }),
  cause: Type.String(),
  evidence: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Null()])),
  check: Type.String({ description: 'what the person reading it should look at' }),
  causeId: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "the id of the issue elsewhere in the call this one follows from (a receiver's loss from its sender's congested uplink); null when it is a cause of its own",
  }),
});
export type CallIssue = Static<typeof CallIssue>;

/** What can lower a score (packages/diagnosis scores: docs/diagnosis.md). */
export const SCORE_FACTOR_NAMES = ['bitRate', 'resolution', 'frameRate', 'loss', 'freezes', 'delay'] as const;
export type ScoreFactorName = (typeof SCORE_FACTOR_NAMES)[number];
const Lowers = Type.Partial(
  Type.Object(
    Object.fromEntries(SCORE_FACTOR_NAMES.map((f) => [f, Type.Number({ minimum: 0 })])) as Record<
      ScoreFactorName,
      ReturnType<typeof Type.Number>
    >,
  ),
  {
    description:
      'the points each factor takes from the score: what it would gain were that factor at its best (video: bitRate, resolution, frameRate, loss, freezes; audio: delay, loss)',
  },
);
export type Lowers = Static<typeof Lowers>;

export const ScoreWindow = Type.Object({ ts: Time, mos: Type.Number({ minimum: 1, maximum: 5 }), lowers: Lowers });
export type ScoreWindow = Static<typeof ScoreWindow>;
const StreamScoreWindow = Type.Intersect([
  ScoreWindow,
  Type.Object({
    weight: Type.Number({
      description:
        "its weight in its participant's score: audio by its mean rate (kbit/s), video by its picture's size (thousands of pixels)",
    }),
    delayMs: Type.Optional(
      Type.Number({
        description:
          'audio: the one-way mouth-to-ear delay the score read, ms (half the round trip, the jitter buffer, packetization); the score less lowers.delay is what a listener hears, lowers.delay what a conversation suffers besides',
      }),
    ),
  }),
]);

export const CallDiagnosis = Type.Object({
  issues: Type.Array(CallIssue),
  scores: Type.Object({
    windowMs: Type.Integer({ description: 'each score is over this window, starting at its ts' }),
    /** Per participant: what it saw and heard in each window (its audio's and its video's weighted scores, combined: docs/diagnosis.md). */
    participants: Type.Record(Type.String(), Type.Array(ScoreWindow)),
    call: Type.Array(Type.Object({ ts: Time, mean: Type.Number(), worst: Type.Number() })),
    /** Per received stream: its own score in each window and its weight in its participant's, what it sees apart from what it hears. */
    streams: Type.Array(
      Type.Object({
        streamId: Type.Integer(),
        participantId: Type.String({ description: 'who receives the stream' }),
        kind: Type.Union([Type.Literal('audio'), Type.Literal('video')]),
        windows: Type.Array(StreamScoreWindow),
      }),
    ),
    summary: Type.Object({ mean: Nullable(Type.Number()), worst: Nullable(Type.Number()) }),
  }),
});
export type CallDiagnosis = Static<typeof CallDiagnosis>;

export const IssueQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z-]+$' })),
    participant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    from: Type.Optional(QueryTime('issues started at or after; default: 24 hours ago')),
    to: Type.Optional(QueryTime('issues started at or before; default: now')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
  },
  { additionalProperties: false },
);
export type IssueQuery = Static<typeof IssueQuery>;

export const IssueList = Type.Object({ issues: Type.Array(CallIssue) });
export type IssueList = Static<typeof IssueList>;

/** Live: what changed in a watched call's diagnosis. */
export interface LiveDiagnosis {
  callId: string;
  /** Issues raised, worsened or cleared, as they are now. */
  issues: CallIssue[];
  /** Newly scored windows of received streams, each with its weight in its participant's score. */
  scores: {
    streamId: number;
    participantId: string;
    kind: 'audio' | 'video';
    ts: number;
    mos: number;
    lowers: Lowers;
    weight: number;
    delayMs?: number;
  }[];
}
