import { type Static, Type } from '@sinclair/typebox';

/**
 * The scenario file format of the lab, declared once: it validates files, types the code and is
 * published as JSON Schema (docs/scenario.schema.json, `rtcscope-lab schema`).
 */

/** The most each value a step sets or a ramp moves may be (rate in kbit/s, delay and jitter in ms, loss in %). */
export const PARAM_MAX = { rateKbps: 10_000_000, delayMs: 10_000, jitterMs: 10_000, lossPct: 100 } as const;
/** Link changes one scenario's ramps may make in all: each is a `tc` call and a state the agent keeps. */
export const MAX_RAMP_CHANGES = 20_000;

const Seconds = (description: string) => Type.Number({ minimum: 0, maximum: 86_400, description });

export const Loss = Type.Union([
  Type.Object(
    { model: Type.Literal('random'), pct: Type.Number({ minimum: 0, maximum: 100, description: '% of packets dropped independently' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      model: Type.Literal('gilbert-elliott'),
      p: Type.Number({ minimum: 0, maximum: 1, description: 'probability good → bad per packet' }),
      r: Type.Number({ minimum: 0, maximum: 1, description: 'probability bad → good per packet' }),
      badPct: Type.Number({ minimum: 0, maximum: 100, default: 100, description: '% lost while bad' }),
      goodPct: Type.Number({ minimum: 0, maximum: 100, default: 0, description: '% lost while good' }),
    },
    { additionalProperties: false },
  ),
]);
export type Loss = Static<typeof Loss>;

/** What a link does to packets. Unset fields keep their previous value; rate null means unlimited. */
export const Conditions = Type.Object(
  {
    rateKbps: Type.Optional(
      Type.Union([Type.Number({ minimum: 8, maximum: PARAM_MAX.rateKbps }), Type.Null()], { description: 'kbit/s; null = unlimited' }),
    ),
    delayMs: Type.Optional(Type.Number({ minimum: 0, maximum: PARAM_MAX.delayMs, description: 'one-way added delay, ms' })),
    jitterMs: Type.Optional(Type.Number({ minimum: 0, maximum: PARAM_MAX.jitterMs, description: 'delay variation, ms' })),
    loss: Type.Optional(Loss),
    queueMs: Type.Optional(Type.Number({ minimum: 1, maximum: 60_000, description: 'bottleneck queue depth, as ms at the link rate' })),
  },
  { additionalProperties: false },
);
export type Conditions = Static<typeof Conditions>;

export const Target = Type.Union(
  [Type.Literal('uplink'), Type.Literal('downlink'), Type.Literal('both'), Type.Literal('bottleneck'), Type.Literal('sfu')],
  {
    description:
      "which link a change applies to: every participant's uplink, downlink or both, the shared bottleneck, or the SFU's own uplink and downlink (topology sfu)",
  },
);
export type Target = Static<typeof Target>;

export const RampParam = Type.Union([Type.Literal('rateKbps'), Type.Literal('delayMs'), Type.Literal('jitterMs'), Type.Literal('lossPct')]);
export type RampParam = Static<typeof RampParam>;

export const Step = Type.Object(
  {
    at: Seconds('when, seconds from the start'),
    on: Type.Optional(Target),
    participant: Type.Optional(Type.Integer({ minimum: 0, description: "only this participant's link (per-participant links)" })),
    set: Conditions,
  },
  { additionalProperties: false },
);

export const Ramp = Type.Object(
  {
    at: Seconds('start of the ramp'),
    until: Seconds('end of the ramp'),
    on: Type.Optional(Target),
    participant: Type.Optional(Type.Integer({ minimum: 0 })),
    ramp: Type.Object(
      {
        param: RampParam,
        from: Type.Number({
          minimum: 0,
          maximum: PARAM_MAX.rateKbps,
          description: "the value at the start, in the param's unit (at most its own bound)",
        }),
        to: Type.Number({
          minimum: 0,
          maximum: PARAM_MAX.rateKbps,
          description: "the value at the end, in the param's unit (at most its own bound)",
        }),
        shape: Type.Union([Type.Literal('linear'), Type.Literal('exponential')]),
        everyS: Type.Optional(Type.Number({ minimum: 0.1, maximum: 60, default: 0.5, description: 'how often the value changes' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type Step = Static<typeof Step>;
export type Ramp = Static<typeof Ramp>;

/**
 * What a participant does during the call, as people do in apps: mute (the microphone's track disabled:
 * its sender goes on sending silence), camera off (the track taken off its sender, `replaceTrack(null)`:
 * nothing is sent), and back. What it changes is the person's choice, not a fault.
 */
export const ParticipantAction = Type.Object(
  {
    at: Seconds('when, seconds from the start'),
    participant: Type.Integer({ minimum: 0, description: 'who does it, p0 first' }),
    do: Type.Union(
      [
        Type.Literal('mute'),
        Type.Literal('unmute'),
        Type.Literal('camera-off'),
        Type.Literal('camera-on'),
        Type.Literal('reconnect'),
        Type.Literal('rejoin'),
      ],
      {
        description:
          "mute and unmute the microphone, turn the camera off and on; through LiveKit, lose the signalling connection: 'reconnect' as livekit-client resumes (the same connections, their ICE restarted), 'rejoin' as it reconnects in full (new connections, its tracks published again)",
      },
    ),
  },
  { additionalProperties: false },
);
export type ParticipantAction = Static<typeof ParticipantAction>;

export const CrossTraffic = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('call'),
      at: Seconds('when the extra call joins'),
      until: Type.Optional(Seconds('when it leaves; default: the end')),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('tcp'),
      at: Seconds('when the bulk TCP flow starts'),
      until: Type.Optional(Seconds('when it stops; default: the end')),
      tool: Type.Optional(Type.Literal('iperf3')),
    },
    { additionalProperties: false },
  ),
]);
export type CrossTraffic = Static<typeof CrossTraffic>;

export const PaperFigure = Type.Object(
  {
    metric: Type.String({
      description: 'e.g. dataRateKbps, rttMs, fps, lossPct, resolution, jain, utilization (%), rateRatio, steadyAfterS, tcpKbps',
    }),
    value: Type.Union([Type.Number(), Type.String()]),
    label: Type.String(),
    source: Type.Optional(Type.String({ maxLength: 200, description: 'the figure, table or section it is read from' })),
  },
  { additionalProperties: false },
);

export const PaperRate = Type.Object(
  {
    fromS: Type.Number({ minimum: 0, description: 'seconds of the scenario (before time scaling)' }),
    toS: Type.Number({ minimum: 0 }),
    kbps: Type.Number({ minimum: 0, description: "the paper's data rate over that stretch" }),
    source: Type.String({ maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const VideoSource = Type.Union([Type.Literal('camera'), Type.Literal('canvas'), Type.Literal('screen')], {
  default: 'camera',
  description:
    "camera: each browser's fake camera (Chromium's plays a generated clip with detail; Firefox's is a plain pattern that stays near 260 kbit/s); canvas: a moving, detailed animation drawn in the page, the same in every browser: choose it to compare browsers; screen: a page of text shared as a screen is (sent as detail), still with a blinking caret for 30 s, then scrolled for 30 s, in turn",
});

export const Video = Type.Object(
  {
    width: Type.Integer({ minimum: 160, maximum: 3840 }),
    height: Type.Integer({ minimum: 90, maximum: 2160 }),
    fps: Type.Integer({ minimum: 1, maximum: 60 }),
    source: Type.Optional(VideoSource),
    fpsVaries: Type.Optional(
      Type.Boolean({
        description:
          'the drawn sources (canvas, screen) change their frame rate every 5 s between fps and a third of it, as a camera does adjusting to low light',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ParticipantBrowser = Type.Union([Type.Literal('chromium'), Type.Literal('firefox')]);
export type ParticipantBrowser = Static<typeof ParticipantBrowser>;

export const Scenario = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 64 }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    source: Type.Optional(Type.String({ maxLength: 300, description: 'the paper and section this reproduces' })),
    participants: Type.Object(
      {
        count: Type.Integer({ minimum: 2, maximum: 8 }),
        topology: Type.Union([Type.Literal('pair'), Type.Literal('mesh'), Type.Literal('sfu')], {
          description:
            'pair: two peers; mesh: a connection between every two; sfu: each participant publishes to a selective forwarding unit and receives the others from it',
        }),
        sfu: Type.Optional(
          Type.Union([Type.Literal('janus'), Type.Literal('livekit')], {
            description:
              "which SFU a call of topology sfu goes through (default janus): Janus's VideoRoom, its clients' way, or LiveKit, joined with livekit-client (simulcast and dynacast on)",
          }),
        ),
        codec: Type.Union([Type.Literal('VP8'), Type.Literal('VP9'), Type.Literal('H264'), Type.Literal('AV1')], { default: 'VP8' }),
        video: Video,
        browsers: Type.Optional(
          Type.Array(ParticipantBrowser, {
            minItems: 2,
            maxItems: 8,
            description:
              "each participant's browser, p0 first, one per participant (default: all chromium); Firefox is Debian's firefox-esr",
          }),
        ),
        cpu: Type.Optional(
          Type.Array(Type.Union([Type.Number({ minimum: 0.02, maximum: 64 }), Type.Null()]), {
            minItems: 2,
            maxItems: 8,
            description:
              "each participant's CPU, in cores its page may use (null: unlimited), p0 first: a weaker device. The page's process (where the browser encodes and decodes WebRTC media) is held to it by a cgroup: needs a lab host run as root with cgroup v1's cpu controller",
          }),
        ),
        viewers: Type.Optional(
          Type.Array(Type.Integer({ minimum: 0, maximum: 7 }), {
            minItems: 1,
            maxItems: 7,
            uniqueItems: true,
            description:
              "participants who only watch and listen, p0 first: they send nothing, their connections' transceivers receive-only (a webinar's audience); between peers and through an SFU (a Janus member who watches joins as a subscriber alone)",
          }),
        ),
        maxBitrateKbps: Type.Optional(Type.Number({ minimum: 30, maximum: 50_000 })),
        audioOnly: Type.Optional(Type.Boolean({ description: 'participants send and receive audio only (video is then not used)' })),
        opusDtx: Type.Optional(
          Type.Boolean({
            description:
              "Opus sends a speaker's silence as a packet every 400 ms instead of 50 a second (DTX, which many apps negotiate with usedtx=1); between peers, not through an SFU, whose room decides it",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    links: Type.Union([
      Type.Object(
        {
          mode: Type.Literal('per-participant'),
          uplink: Conditions,
          downlink: Conditions,
          sfu: Type.Optional(
            Type.Object(Conditions.properties, {
              additionalProperties: false,
              description:
                "the SFU's own uplink and downlink, which every participant's media crosses (topology sfu; unimpaired unless set)",
            }),
          ),
        },
        { additionalProperties: false, description: 'each participant has its own uplink and downlink' },
      ),
      Type.Object(
        { mode: Type.Literal('shared'), bottleneck: Conditions },
        { additionalProperties: false, description: 'every flow (calls, TCP) crosses one bottleneck' },
      ),
    ]),
    schedule: Type.Array(Type.Union([Step, Ramp]), { maxItems: 1000, default: [] }),
    crossTraffic: Type.Optional(Type.Array(CrossTraffic, { maxItems: 16 })),
    actions: Type.Optional(Type.Array(ParticipantAction, { maxItems: 1000, description: 'what participants do, in time order' })),
    durationS: Type.Number({ minimum: 5, maximum: 86_400 }),
    repetitions: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
    timeScale: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 1,
      description: 'multiplies every time of the scenario: 0.25 runs a 20-minute scenario in 5 minutes',
    }),
    paper: Type.Optional(
      Type.Object(
        {
          figures: Type.Array(PaperFigure),
          findings: Type.Array(Type.String()),
          rates: Type.Optional(
            Type.Array(PaperRate, { description: "the paper's data rate over stretches of the run, drawn beside the measured one" }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $id: 'https://rtcscope.dev/schemas/scenario-v1.json', title: 'rtcscope lab scenario' },
);
export type Scenario = Static<typeof Scenario>;
