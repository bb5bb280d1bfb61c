/** The pre-call test, an entry of its own: an app that only monitors calls does not carry it. */
export { runPrecallTest, type PrecallOptions, type PrecallProgress, type PrecallResult } from './run.js';
export { VERDICT_LIMITS } from './verdict.js';
