export { mean } from './mean.js';
export { bootstrapInterval, type IntervalOptions, pearson, ranks, spearman } from './correlation.js';
export { counterDelta, kbpsFromBytes, lossPercent, meanPerItem, perSecond, sharePercent } from './counters.js';
export { jainIndex } from './fairness.js';
export { fairnessOverTime, type FairnessAt, type RateObservation } from './fairness-series.js';
export { participantRates, type StreamOwner, type StreamRate } from './participant-rates.js';
export { APP_LIMIT, callVerdict, issuesVerdict, type JudgedIssue, VERDICT_RULE, type Verdict, type VerdictInputs } from './quality.js';
export { type Phase, type PhaseSummary, type RatePoint, summarizePhases } from './run-summary.js';
export { callMeans, type CallMeans, MEAN_DEFINITIONS, type MeanRoles, meanRoles, type MeanSample } from './call-means.js';
