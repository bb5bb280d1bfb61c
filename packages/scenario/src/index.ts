export { findScenario, LIBRARY } from './library.js';
export { rampValue } from './ramp.js';
export {
  Conditions,
  CrossTraffic,
  Loss,
  ParticipantAction,
  ParticipantBrowser,
  Ramp,
  Scenario,
  Step,
  Video,
  VideoSource,
  type RampParam,
  type Target,
} from './schema.js';
export { compileTimeline, type LinkId, linkIds, type LinkState, stateAt, type Timeline, type TimelinePoint } from './timeline.js';
export { SETTLE_S, shortestPhaseS, timeScaleWarnings } from './settle.js';
export { isRamp, parseScenario } from './validate.js';
