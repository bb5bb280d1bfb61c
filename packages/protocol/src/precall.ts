import { type Static, Type } from '@sinclair/typebox';
import { InsightBreakdown } from './api.js';
import { Literals, Nullable, QueryTime, Time } from './schema-parts.js';

/**
 * A TURN or STUN server as an RTCIceServer names it (RFC 7064, 7065): `turn:host[:port]`, `turns:` for
 * TLS, with `?transport=udp|tcp`.
 */
export const IceServerUrl = Type.String({
  pattern: '^(stun|turns?):[^\\s?/]+(\\?transport=(udp|tcp))?$',
  maxLength: 256,
  description:
    'a TURN or STUN server URL: turn:host[:port][?transport=udp|tcp], turns: for TLS, stun:host[:port] (e.g. turn:turn.example.com:3478?transport=udp)',
});

/** How long handed-out TURN credentials stay good unless the project says otherwise, s: a pre-call test or a call's set-up is well within it. */
export const TURN_TTL_DEFAULT_S = 300;

/**
 * The longest credentials are handed out for, s. A TURN server checks them when an allocation is made,
 * not while it lasts, so a call keeps its relay past their expiry; a credential that leaks from a page is
 * good only for minutes.
 */
export const TURN_TTL_MAX_S = 600;

/** Seconds the credentials handed out for the project's TURN servers stay good. */
const TurnTtlS = Type.Integer({ minimum: 60, maximum: TURN_TTL_MAX_S, default: TURN_TTL_DEFAULT_S });

/**
 * The project's TURN servers and the secret they share with rtcscope (coturn's `static-auth-secret` with
 * `use-auth-secret`): the SDK and the pre-call test are handed time-limited credentials signed with it.
 */
export const TurnSettings = Type.Object(
  {
    urls: Type.Array(IceServerUrl, { minItems: 1, maxItems: 10, uniqueItems: true }),
    secret: Type.String({ minLength: 16, maxLength: 256, description: "the TURN server's shared secret; never shown again" }),
    ttlS: Type.Optional(TurnTtlS),
  },
  { additionalProperties: false },
);
export type TurnSettings = Static<typeof TurnSettings>;

/** The project's TURN servers as the API shows them: never the secret. */
export const TurnSettingsInfo = Type.Object({
  turn: Type.Union([Type.Object({ urls: Type.Array(Type.String()), ttlS: Type.Integer(), updatedAt: Time }), Type.Null()], {
    description: 'null: none set (the pre-call test then tries STUN and direct paths only)',
  }),
});
export type TurnSettingsInfo = Static<typeof TurnSettingsInfo>;

/** An RTCIceServer as a browser takes it: TURN with a user name and a password that expire. */
export const IceServer = Type.Object({
  urls: Type.Array(Type.String()),
  username: Type.Optional(Type.String()),
  credential: Type.Optional(Type.String()),
});
export type IceServer = Static<typeof IceServer>;

/**
 * The answer to an SDK's `iceServers` request on `/ingest`: the project's TURN servers with credentials
 * good until `expiresAt` (none when the project set none), or why not.
 */
export type IceServersAnswer = { ok: true; iceServers: IceServer[]; expiresAt: number | null } | { ok: false; error: string };

const Verdict = Literals(['good', 'fair', 'poor', 'failed']);
export type PrecallVerdict = Static<typeof Verdict>;
const Ms = Type.Number({ minimum: 0, maximum: 600_000, description: 'milliseconds' });
const Text = (maxLength: number) => Type.String({ maxLength });
/** min / mean / max of what was measured each second of the media step. */
const Spread = Type.Object(
  { min: Type.Number({ minimum: 0 }), avg: Type.Number({ minimum: 0 }), max: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);
const DeviceStatus = Literals(['ok', 'denied', 'missing', 'not-asked', 'error']);
const CandidateKind = Literals(['host', 'srflx', 'prflx', 'relay']);
const Transport = Literals(['udp', 'tcp', 'tls']);
export type PrecallTransport = Static<typeof Transport>;

/** One thing the test found, in words a customer can act on; `code` is for programs. */
const Finding = Type.Object(
  { code: Type.String({ pattern: '^[a-z-]{1,40}$' }), severity: Literals(['info', 'warning', 'error']), text: Text(400) },
  { additionalProperties: false },
);
export type PrecallFinding = Static<typeof Finding>;

const Camera = Type.Object(
  {
    status: DeviceStatus,
    label: Type.Optional(Text(256)),
    asked: Type.Object({ width: Type.Integer({ minimum: 1, maximum: 8192 }), height: Type.Integer({ minimum: 1, maximum: 8192 }) }),
    got: Type.Optional(
      Type.Object({ width: Type.Integer({ minimum: 0, maximum: 8192 }), height: Type.Integer({ minimum: 0, maximum: 8192 }) }),
    ),
    fps: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'frames that reached the page in a second' })),
    error: Type.Optional(Text(400)),
  },
  { additionalProperties: false },
);
const Microphone = Type.Object(
  {
    status: DeviceStatus,
    label: Type.Optional(Text(256)),
    levelDb: Type.Optional(Type.Number({ minimum: -200, maximum: 0, description: 'loudest 50 ms in a second, dB below full scale' })),
    error: Type.Optional(Text(400)),
  },
  { additionalProperties: false },
);

/** A way to the TURN server tried on its own: a relay allocated, then two connections in the page joined through it. */
const TransportCheck = Type.Object(
  {
    transport: Transport,
    url: Text(256),
    connected: Type.Boolean(),
    allocateMs: Type.Optional(Ms),
    connectMs: Type.Optional(Ms),
    error: Type.Optional(Text(400)),
  },
  { additionalProperties: false },
);

const Step = Type.Object(
  {
    targetKbps: Type.Integer({ minimum: 1, maximum: 100_000 }),
    kbps: Type.Number({ minimum: 0, maximum: 1_000_000 }),
    lossPct: Type.Number({ minimum: 0, maximum: 100 }),
  },
  { additionalProperties: false },
);

const Media = Type.Object(
  {
    transport: Transport,
    /**
     * From the first offer: a relay allocated, ICE checks done, then DTLS (`dtlsMs` after ICE), the
     * connection up, the first video frame decoded.
     */
    networkTiming: Type.Object(
      {
        allocateMs: Type.Optional(Ms),
        iceMs: Type.Optional(Ms),
        dtlsMs: Type.Optional(Ms),
        peerConnectionMs: Type.Optional(Ms),
        firstMediaMs: Type.Optional(Ms),
      },
      { additionalProperties: false },
    ),
    selectedPair: Type.Optional(
      Type.Object(
        {
          localType: CandidateKind,
          localProtocol: Type.String({ maxLength: 8 }),
          relayProtocol: Type.Optional(Transport),
          remoteType: CandidateKind,
        },
        { additionalProperties: false },
      ),
    ),
    /** Every byte that reached the receiving connection each second, at each video rate asked. */
    steps: Type.Array(Step, { maxItems: 20 }),
    /** The most that arrived in one second once a step had settled (the link's capacity where it was full). */
    throughputKbps: Type.Number({ minimum: 0, maximum: 1_000_000 }),
    /** The top rate asked still got through whole: the link may carry more. */
    throughputAtLeast: Type.Boolean(),
    /** The browser's round trip to the TURN server: half the loop's, from RTCP. */
    rttMs: Type.Optional(Spread),
    /** The tone's jitter at the receiving side. */
    jitterMs: Type.Optional(Spread),
    /** Of the tone's packets (audio is never resent, so this is the link's own loss): the mean over all of them, the least and most in a second. */
    lossPct: Type.Optional(Spread),
  },
  { additionalProperties: false },
);

/**
 * What a pre-call test found, as the SDK sends it (`precallResult` on `/ingest`) and the API returns it.
 * The media step runs between two connections in the page, both through the TURN server, so what it
 * measures crosses the user's link to the TURN server twice: its throughput is the lower of upload and
 * download, its RTT is the browser's to the TURN server (half the loop's), its loss is both crossings'.
 */
export const PrecallReport = Type.Object(
  {
    v: Type.Literal(1),
    ticket: Type.Optional(
      Type.String({ maxLength: 128, description: "a reference the support engineer gave, e.g. the customer's ticket number" }),
    ),
    verdict: Verdict,
    findings: Type.Array(Finding, { maxItems: 20 }),
    testTiming: Type.Object({ start: Type.Number({ minimum: 1e12, maximum: 1e13 }), durationMs: Ms }, { additionalProperties: false }),
    devices: Type.Object({ camera: Camera, microphone: Microphone }, { additionalProperties: false }),
    gathering: Type.Object(
      {
        durationMs: Ms,
        complete: Type.Boolean(),
        candidates: Type.Array(
          Type.Object(
            { type: CandidateKind, protocol: Type.String({ maxLength: 8 }), count: Type.Integer({ minimum: 1, maximum: 1000 }) },
            { additionalProperties: false },
          ),
          { maxItems: 16 },
        ),
      },
      { additionalProperties: false },
    ),
    transports: Type.Array(TransportCheck, { maxItems: 10 }),
    media: Type.Union([Media, Type.Null()]),
  },
  { additionalProperties: false },
);
export type PrecallReport = Static<typeof PrecallReport>;
export type PrecallMedia = Static<typeof Media>;
export type PrecallTransportCheck = Static<typeof TransportCheck>;

/** The answer to `precallResult`. */
export type PrecallResultAck = { ok: true } | { ok: false; error: string };

const Percentiles = Type.Union([Type.Object({ p10: Type.Number(), p50: Type.Number(), p90: Type.Number() }), Type.Null()]);

export const PrecallListQuery = Type.Object(
  {
    from: Type.Optional(QueryTime('tests stored at or after')),
    to: Type.Optional(QueryTime('tests stored before')),
    verdict: Type.Optional(Verdict),
    ticket: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'only the tests sent with this ticket reference' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type PrecallListQuery = Static<typeof PrecallListQuery>;

export const PrecallSummary = Type.Object({
  callId: Type.String({ description: "the test's call (its samples, issues and scores): precall-<testId>" }),
  createdAt: Time,
  ticket: Nullable(Type.String()),
  verdict: Verdict,
  findings: Type.Array(Type.String(), { description: 'what the test found, in words, worst first' }),
  transport: Nullable(Transport),
  needsTurn: Type.Boolean({ description: 'no server-reflexive candidate: peers reach this browser only through a relay' }),
  udpOk: Nullable(Type.Boolean()),
  tcpOk: Nullable(Type.Boolean()),
  tlsOk: Nullable(Type.Boolean()),
  throughputKbps: Nullable(Type.Number()),
  rttMs: Nullable(Type.Number()),
  jitterMs: Nullable(Type.Number()),
  lossPct: Nullable(Type.Number()),
  browser: Nullable(Type.String()),
  os: Nullable(Type.String()),
  country: Nullable(Type.String()),
});
export type PrecallSummary = Static<typeof PrecallSummary>;
export const PrecallList = Type.Object({ tests: Type.Array(PrecallSummary) });
export type PrecallList = Static<typeof PrecallList>;
export const PrecallDetail = Type.Object({ test: Type.Intersect([PrecallSummary, Type.Object({ report: PrecallReport })]) });
export type PrecallDetail = Static<typeof PrecallDetail>;

export const PrecallInsightsQuery = Type.Object(
  {
    from: Type.Optional(QueryTime('tests stored at or after (default: 7 days ago)')),
    to: Type.Optional(QueryTime('tests stored before (default: now)')),
    breakdown: Type.Optional(InsightBreakdown),
  },
  { additionalProperties: false },
);
export type PrecallInsightsQuery = Static<typeof PrecallInsightsQuery>;

export const PrecallInsights = Type.Object({
  from: Time,
  to: Time,
  breakdown: Type.String({ description: 'as asked; path: the way media went through the TURN server (udp, tcp, tls)' }),
  segments: Type.Array(
    Type.Object({
      segment: Nullable(Type.String()),
      tests: Type.Integer(),
      verdicts: Type.Object({ good: Type.Integer(), fair: Type.Integer(), poor: Type.Integer(), failed: Type.Integer() }),
      needsTurnPct: Type.Number({ description: 'share of tests without a server-reflexive candidate' }),
      udpBlockedPct: Type.Number({ description: 'share of the tests that tried UDP to the TURN server and could not use it' }),
      viaTcpPct: Type.Number({ description: 'share whose media went through TURN over TCP' }),
      viaTlsPct: Type.Number({ description: 'share whose media went through TURN over TLS' }),
      throughputKbps: Percentiles,
      rttMs: Percentiles,
      lossPct: Percentiles,
    }),
  ),
});
export type PrecallInsights = Static<typeof PrecallInsights>;

/** The hosted test page's question before it runs: whose project a publishable key reports to. */
export const PrecallRecipientQuery = Type.Object(
  { ingestKey: Type.String({ minLength: 8, maxLength: 128, description: 'the publishable ingest key the link carries' }) },
  { additionalProperties: false },
);
export type PrecallRecipientQuery = Static<typeof PrecallRecipientQuery>;
export const PrecallRecipient = Type.Object({
  organization: Type.String({ description: "the name of the project's organization" }),
  project: Type.String(),
});
export type PrecallRecipient = Static<typeof PrecallRecipient>;
