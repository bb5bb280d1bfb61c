export { headline, type Headline, METRICS, type MetricKey, overRepetitions, paperFigures, type RunOutcome, type Spread, toCsv, type ExportRow } from './results.js';
export {
  type CallRates,
  type FlowSummary,
  measureRun,
  OUTCOME_SERIES_POINTS,
  type RunSummary,
  type SharedBottleneckSummary,
  summarizeRun,
  summarizeSharedBottleneck,
} from './summary.js';
export { type Ack, AgentCapabilities, type AgentClientEvents, AgentHello, type AgentServerEvents, type AppliedChange, type Job, type RunCall, RunProgress, RunReport, RunResult } from './wire.js';
export {
  AgentCreate,
  AgentCreated,
  AgentInfo,
  AgentList,
  CampaignCreate,
  CampaignDetail,
  CampaignList,
  CampaignParameters,
  CampaignSummary,
  RunInfo,
  RunStatus,
} from './api.js';
export { MAX_RUNS_PER_CAMPAIGN, type CampaignPlan, planCampaign } from './campaign.js';
export { type LabSet, type LabSetMark, labSetMetadata, labSetOf, labSetsOf } from './set-marks.js';
