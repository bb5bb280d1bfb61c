import { type Static, Type } from '@sinclair/typebox';
import { AgentCapabilities } from './wire.js';
import { ParticipantBrowser, Video } from '@rtcscope/scenario';

/** REST `/api/v1/lab` shapes shared by the server, the dashboard and the agent. */

const Time = Type.Number({ description: 'epoch milliseconds' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Codec = Type.Union([Type.Literal('VP8'), Type.Literal('VP9'), Type.Literal('H264'), Type.Literal('AV1')]);

export const CampaignParameters = Type.Object(
  {
    timeScale: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'shortens every time of the scenario' })),
    repetitions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    video: Type.Optional(Video),
    browsers: Type.Optional(
      Type.Array(ParticipantBrowser, {
        minItems: 2,
        maxItems: 8,
        description: "each participant's browser, p0 first, one per participant",
      }),
    ),
    maxBitrateKbps: Type.Optional(Type.Number({ minimum: 30, maximum: 50_000 })),
    codecs: Type.Optional(
      Type.Array(Codec, {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        description: 'one variant per codec, each run `repetitions` times',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CampaignParameters = Static<typeof CampaignParameters>;

export const CampaignCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scenario: Type.Union([
      Type.String({ minLength: 1, maxLength: 64, description: 'a built-in scenario id' }),
      Type.Object({}, { description: 'a scenario file' }),
    ]),
    parameters: Type.Optional(CampaignParameters),
  },
  { additionalProperties: false },
);
export type CampaignCreate = Static<typeof CampaignCreate>;

export const RunStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('done'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
export type RunStatus = Static<typeof RunStatus>;

export const RunInfo = Type.Object({
  id: Type.Integer(),
  campaignId: Type.Integer(),
  variant: Type.Integer({ description: 'index into the campaign variants' }),
  repetition: Type.Integer(),
  status: RunStatus,
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  message: Type.Union([Type.String(), Type.Null()]),
  callId: Type.Union([Type.String(), Type.Null()], { description: 'the main call, once it exists' }),
  callIds: Type.Array(Type.String(), { description: 'every call of the run (cross traffic too), once it ended' }),
  agent: Type.Union([Type.String(), Type.Null()]),
  startedAt: NullableTime,
  finishedAt: NullableTime,
  error: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Unknown({ description: 'RunOutcome: per flow and phase, set vs measured; null until done' }),
});
export type RunInfo = Static<typeof RunInfo>;

export const CampaignSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  scenarioId: Type.String(),
  scenarioTitle: Type.String(),
  timeScale: Type.Number({ description: 'the factor every time of the scenario was run at (1 = as written)' }),
  createdAt: Time,
  status: RunStatus,
  counts: Type.Record(Type.String(), Type.Integer()),
  total: Type.Integer(),
  /** Finished runs plus the running runs' fractions, over all runs. */
  progress: Type.Number({ minimum: 0, maximum: 1 }),
});
export type CampaignSummary = Static<typeof CampaignSummary>;

export const CampaignList = Type.Object({ campaigns: Type.Array(CampaignSummary) });
export type CampaignList = Static<typeof CampaignList>;

export const CampaignDetail = Type.Object({
  campaign: CampaignSummary,
  scenario: Type.Unknown({ description: 'the scenario as submitted, defaults filled' }),
  parameters: CampaignParameters,
  variants: Type.Array(Type.String(), { description: 'what each variant changes, e.g. "codec VP9"' }),
  runs: Type.Array(RunInfo),
});
export type CampaignDetail = Static<typeof CampaignDetail>;

export const AgentInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  host: Type.Union([Type.String(), Type.Null()]),
  connected: Type.Boolean(),
  lastSeenAt: NullableTime,
  capabilities: Type.Union([AgentCapabilities, Type.Null()]),
});
export type AgentInfo = Static<typeof AgentInfo>;
export const AgentList = Type.Object({ agents: Type.Array(AgentInfo) });
export type AgentList = Static<typeof AgentList>;

export const AgentCreate = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
export type AgentCreate = Static<typeof AgentCreate>;
export const AgentCreated = Type.Object({
  agent: AgentInfo,
  token: Type.String({ description: 'shown once: give it to `rtcscope-lab agent --token`' }),
});
export type AgentCreated = Static<typeof AgentCreated>;
