import type { Scenario } from './schema.js';
import { isRamp } from './validate.js';

/**
 * How long a WebRTC call's congestion control needs after a change before its rate is steady: Jansen et
 * al. 2017 (§4.2, Fig. 8) measured 16 s and 18 s after bandwidth was freed, and about 10 s of ramp-up at
 * the start (§4.1). A phase shorter than this shows the transition, not the condition.
 */
export const SETTLE_S = 20;

/** The scaled seconds at which the schedule starts or ends a condition (a ramp counts as one change). */
function boundaries(s: Scenario, scale: number): number[] {
  const times = new Set<number>([0, s.durationS * scale]);
  for (const c of s.schedule) {
    times.add(c.at * scale);
    if (isRamp(c)) times.add(c.until * scale);
  }
  for (const x of s.crossTraffic ?? []) {
    times.add(x.at * scale);
    if (x.until !== undefined) times.add(x.until * scale);
  }
  return [...times].filter((t) => t <= s.durationS * scale).sort((a, b) => a - b);
}

/** The shortest time a condition of the scenario holds at `scale`, in seconds. */
export function shortestPhaseS(s: Scenario, scale = s.timeScale): number {
  const t = boundaries(s, scale);
  let shortest = Infinity;
  for (let k = 1; k < t.length; k++) if (t[k]! - t[k - 1]! > 1e-9) shortest = Math.min(shortest, t[k]! - t[k - 1]!);
  return shortest;
}

/**
 * Why a run of `s` at `scale` would not show the conditions it sets, one sentence each; empty when it
 * would. A person can still run it (a quick smoke test), but its figures are then not the paper's kind.
 */
export function timeScaleWarnings(s: Scenario, scale = s.timeScale): string[] {
  const shortest = shortestPhaseS(s, scale);
  if (shortest >= SETTLE_S) return [];
  return [
    `At time scale ${scale} the shortest condition lasts ${shortest.toFixed(1)} s; a call needs about ${SETTLE_S} s after a change to settle ` +
      `(16–18 s in Jansen et al. §4.2), so its rates show transitions, not the set conditions. ` +
      `Use a scale of at least ${Math.min(1, Math.ceil((SETTLE_S / (shortest / scale)) * 100) / 100)} for settled figures.`,
  ];
}
