export { counterDelta, kbpsFromBytes, lossPercent, perSecond } from './counters.js';
export { jainIndex } from './fairness.js';
export { fairnessOverTime, type FairnessAt, type RateObservation } from './fairness-series.js';
export { participantRates, type StreamOwner, type StreamRate } from './participant-rates.js';
export { qualityHint, type QualityHint, type QualityInputs } from './quality.js';
export { type Phase, type PhaseSummary, type RatePoint, summarizePhases } from './run-summary.js';
