import { mean } from './mean.js';
export interface RatePoint {
  /** Epoch ms or seconds from the start; the same unit as the phases. */
  t: number;
  kbps: number;
}

export interface Phase {
  from: number;
  to: number;
  /** The cap set during the phase; null when unlimited. */
  capKbps: number | null;
}

export interface PhaseSummary extends Phase {
  /** Mean sending rate over the phase. */
  meanKbps: number | null;
  /** Mean rate the far end received over the phase: what crossed the link. */
  receivedKbps: number | null;
  /** The rate the flow settled at: the mean of the phase's last half. */
  settledKbps: number | null;
  /**
   * Mean received rate over the cap (the papers' bandwidth utilization), at most 1: a sender may send
   * above a cap that was just lowered (the link queues and drops it), a link never carries more. Without
   * a received rate, the sent one; null without a cap.
   */
  utilization: number | null;
  /** Time from the phase start until the rate stays within `band` of its settled value; null if it never does. */
  steadyAfter: number | null;
}

/**
 * Summarizes a flow's rate per phase of a schedule, from its sent and (where known) received rates.
 * The settled value is the mean sent rate of the phase's last half; the rate is steady from the first
 * point after which every point stays within `band` (±15 %) of it. The first phase's mean includes the
 * ramp-up, as the papers' averages do.
 */
export function summarizePhases(
  points: readonly RatePoint[],
  phases: readonly Phase[],
  received: readonly RatePoint[] | null = null,
  band = 0.15,
): PhaseSummary[] {
  return phases.map((phase) => {
    const during = (p: RatePoint) => p.t >= phase.from && p.t < phase.to;
    const inPhase = points.filter(during);
    const meanKbps = mean(inPhase.map((p) => p.kbps));
    const receivedKbps = received ? mean(received.filter(during).map((p) => p.kbps)) : null;
    const carried = received ? receivedKbps : meanKbps;
    const settled = mean(inPhase.slice(Math.floor(inPhase.length / 2)).map((p) => p.kbps));
    let steadyAfter: number | null = null;
    if (settled !== null && settled > 0) {
      for (let k = inPhase.length - 1; k >= 0; k--) {
        if (Math.abs(inPhase[k]!.kbps - settled) > band * settled) break;
        steadyAfter = inPhase[k]!.t - phase.from;
      }
    }
    return {
      ...phase,
      meanKbps,
      receivedKbps,
      settledKbps: settled,
      utilization: carried !== null && phase.capKbps ? Math.min(1, carried / phase.capKbps) : null,
      steadyAfter,
    };
  });
}
