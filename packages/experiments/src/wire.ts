import { Loss } from '@rtcscope/scenario';
import { type Static, Type } from '@sinclair/typebox';

/**
 * What a lab agent and the server say to each other on socket.io `/agent`, declared once: the agent
 * authenticates with an agent token, says what it can do, takes jobs, streams progress and reports.
 */

export const AgentCapabilities = Type.Object(
  {
    backends: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 8, description: 'link emulation backends this host can run' }),
    backend: Type.String({ maxLength: 64, description: 'the backend runs use' }),
    maxConcurrentCalls: Type.Integer({ minimum: 1, maximum: 1000, description: 'calls at 640x360 the host sustains at once' }),
    cores: Type.Integer({ minimum: 1, maximum: 4096 }),
    chromium: Type.String({ maxLength: 200 }),
    firefox: Type.Optional(
      Type.String({ maxLength: 200, description: "its version, or why it cannot run (scenarios' Firefox participants need it)" }),
    ),
    sfu: Type.Optional(
      Type.String({ maxLength: 200, description: "its SFU's (Janus) version, or why it cannot run (scenarios of topology sfu need it)" }),
    ),
    livekit: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "its LiveKit server's version, or why it cannot run (scenarios through sfu 'livekit' need it)",
      }),
    ),
    cpuLimit: Type.Optional(
      Type.String({
        maxLength: 200,
        description: "how it holds a participant to a CPU limit, or why it cannot (scenarios' participants.cpu need it)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type AgentCapabilities = Static<typeof AgentCapabilities>;

export const AgentHello = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    host: Type.String({ minLength: 1, maxLength: 255, description: 'the machine the agent runs on' }),
    version: Type.String({ maxLength: 64 }),
    capabilities: AgentCapabilities,
    /** Runs this agent is still busy with (after a reconnect): their timers are kept alive. */
    running: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type AgentHello = Static<typeof AgentHello>;

/** A run the server hands to an agent. The scenario has the campaign's parameters applied already. */
export interface Job {
  runId: number;
  campaignId: number;
  repetition: number;
  /** The campaign's name in call ids, so a run's calls are easy to find. */
  label: string;
  ingestKey: string;
  scenario: unknown;
}

export const RunProgress = Type.Object(
  {
    runId: Type.Integer({ minimum: 1 }),
    fraction: Type.Number({ minimum: 0, maximum: 1 }),
    message: Type.String({ maxLength: 500 }),
    /** The run's main call, once it exists, so the dashboard can draw it live. */
    callId: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type RunProgress = Static<typeof RunProgress>;

const LinkStateSchema = Type.Object(
  {
    rateKbps: Type.Union([Type.Number(), Type.Null()]),
    delayMs: Type.Number(),
    jitterMs: Type.Number(),
    loss: Loss,
    queueMs: Type.Union([Type.Number(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const RunResult = Type.Object(
  {
    callId: Type.String({ maxLength: 128, description: 'the main call; cross-traffic calls follow in calls' }),
    calls: Type.Array(
      Type.Object(
        {
          callId: Type.String({ maxLength: 128 }),
          joinedAt: Type.Number({ description: 's after the main call connected' }),
          leftAt: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { maxItems: 32 },
    ),
    startedAt: Type.Number({ description: 'epoch ms when the main call connected: t = 0 of the schedule' }),
    endedAt: Type.Number(),
    applied: Type.Array(
      Type.Object(
        { t: Type.Number({ description: 's after start, as applied' }), link: Type.String({ maxLength: 32 }), state: LinkStateSchema },
        { additionalProperties: false },
      ),
      { maxItems: 7000, description: 'every link change as applied; ramps step every 0.5 s' },
    ),
    backend: Type.String({ maxLength: 64 }),
    samples: Type.Optional(
      Type.Array(
        Type.Object(
          {
            participant: Type.String({ maxLength: 128 }),
            storedRows: Type.Integer({ minimum: 0, description: 'sample rows the server acknowledged storing' }),
            droppedRows: Type.Integer({ minimum: 0, description: 'rows dropped while the server was unreachable too long' }),
            pendingRows: Type.Integer({ minimum: 0, description: 'rows still unsent when the monitor closed' }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 64, description: "what each main-call participant's SDK monitor said of its samples once it hung up" },
      ),
    ),
    tcpFlows: Type.Optional(
      Type.Array(
        Type.Object(
          {
            label: Type.String({ maxLength: 32 }),
            joinedAt: Type.Number({ description: 's after start' }),
            leftAt: Type.Number(),
            rates: Type.Array(
              Type.Object({ t: Type.Number({ description: 's after start' }), kbps: Type.Number() }, { additionalProperties: false }),
              { maxItems: 90_000 },
            ),
          },
          { additionalProperties: false },
        ),
        { maxItems: 8, description: 'TCP bulk flows on the shared bottleneck: goodput per second as their far end counted it' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RunResult = Static<typeof RunResult>;
export type AppliedChange = RunResult['applied'][number];
export type RunCall = RunResult['calls'][number];

export const RunReport = Type.Union([
  Type.Object({ runId: Type.Integer({ minimum: 1 }), ok: Type.Literal(true), result: RunResult }, { additionalProperties: false }),
  Type.Object(
    { runId: Type.Integer({ minimum: 1 }), ok: Type.Literal(false), error: Type.String({ maxLength: 4000 }) },
    { additionalProperties: false },
  ),
]);
export type RunReport = Static<typeof RunReport>;

/** An agent keeps a message and sends it again only when told to retry (or when no answer came). */
export type Ack = { ok: true } | { ok: false; error: string; retry?: boolean };

/**
 * `/agent`, agent → server, as a socket.io event map (the server checks every payload whatever it
 * says). Each is answered; a refused one says why, and whether to send it again.
 */
export interface AgentClientEvents {
  /** Who the agent is and what it can do, and the runs it is still busy with after a reconnect. */
  hello: (hello: AgentHello, ack: (answer: Ack & { running?: number[] }) => void) => void;
  /** The next run of the project's queue for this agent, or none. */
  next: (ack: (answer: Ack & { job?: Job | null }) => void) => void;
  progress: (progress: RunProgress, ack: (answer: Ack) => void) => void;
  report: (report: RunReport, ack: (answer: Ack) => void) => void;
  /**
   * What the Janus of a run through an SFU reported of its room (a POST of its sample event handler, as
   * it is: protocol's `JanusEventPost`), for the run's project; answered with how many events were new.
   */
  sfuEvents: (events: unknown, ack: (answer: Ack & { stored?: number }) => void) => void;
  /**
   * What a run's LiveKit posted of its room (its webhook events, as protobuf's JSON: protocol's
   * `LiveKitEventPost`), for the run's project; answered with how many events were new.
   */
  liveKitEvents: (events: unknown, ack: (answer: Ack & { stored?: number }) => void) => void;
}

/** `/agent`, server → agent. */
export interface AgentServerEvents {
  /** Runs were queued: ask for the next. */
  wake: () => void;
  /** A run was cancelled from the dashboard: stop it. */
  cancel: (what: { runId: number }) => void;
}
