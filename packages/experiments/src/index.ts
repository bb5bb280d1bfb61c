export {
  headline,
  type Headline,
  readOutcome,
  METRICS,
  type MetricKey,
  overRepetitions,
  type PaperFigure,
  steadyStateBound,
  paperFigures,
  paperOnlyMetrics,
  type Spread,
  toCsv,
  type ExportRow,
} from './results.js';
export {
  type CallRates,
  type FlowPhase,
  type FlowSecond,
  type FlowSummary,
  measureRun,
  type RunOutcome,
  OUTCOME_SERIES_POINTS,
  type RunSummary,
  type SharedBottleneckSummary,
  summarizeRun,
  summarizeSharedBottleneck,
} from './summary.js';
export {
  type Ack,
  AgentCapabilities,
  type AgentClientEvents,
  AgentHello,
  type AgentServerEvents,
  type AppliedChange,
  type Job,
  type RunCall,
  RunProgress,
  RunReport,
  RunResult,
} from './wire.js';
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
export { campaignProgress, MAX_RUNS_PER_CAMPAIGN, type CampaignPlan, planCampaign } from './campaign.js';
export { describeConditions, type PathConditions, type PathPhase, pathPhases, SAME_CHANGE_S, senderPath } from './phases.js';
export { type LabSet, type LabSetMark, labSetMetadata, labSetOf, labSetsOf } from './set-marks.js';
