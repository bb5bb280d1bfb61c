import type { LinkState, Scenario } from '@rtcscope/scenario';
import type { AppliedChange } from './wire.js';

/** What a sender's media met on its way, combined over the links it crosses. */
export interface PathConditions {
  /** The narrowest link's rate; null: unlimited. */
  capKbps: number | null;
  /** One-way added delay, summed over the links, ms. */
  delayMs: number;
  jitterMs: number;
  /** Random loss combined over the links, %; null when a link drops in bursts (Gilbert-Elliott). */
  lossPct: number | null;
  queueMs: number | null;
}

/** A stretch of a run under one set of conditions, or a ramp between two. */
export interface PathPhase {
  from: number;
  to: number;
  set: PathConditions;
  /** Where a ramp started; null for a phase that holds its conditions. */
  rampFrom: PathConditions | null;
}

/**
 * Changes closer together than this are one change: the uplink and the downlink of one step are applied
 * a few ms apart, and a ramp's steps (0.5 s apart unless set) are one ramp.
 */
export const SAME_CHANGE_S = 1;

/**
 * The links sender k's media crosses: its uplink (then, through an SFU, the SFU's downlink) and, with one
 * receiver, the rest of the way to it; or the bottleneck.
 */
export function senderPath(scenario: Scenario, sender: number): string[] {
  if (scenario.links.mode === 'shared') return ['bottleneck'];
  const oneReceiver = scenario.participants.count === 2;
  const receiverDown = oneReceiver ? [`p${1 - sender}-down`] : [];
  if (scenario.participants.topology === 'sfu') return [`p${sender}-up`, 'sfu-down', ...(oneReceiver ? ['sfu-up'] : []), ...receiverDown];
  return [`p${sender}-up`, ...receiverDown];
}

export function pathConditions(states: readonly LinkState[]): PathConditions {
  const rates = states.map((s) => s.rateKbps).filter((r): r is number => r !== null);
  const random = states.every((s) => s.loss.model === 'random');
  const kept = states.reduce((k, s) => k * (1 - (s.loss.model === 'random' ? s.loss.pct : 0) / 100), 1);
  const queues = states.map((s) => s.queueMs).filter((q): q is number => q !== null);
  return {
    capKbps: rates.length ? Math.min(...rates) : null,
    delayMs: states.reduce((a, s) => a + s.delayMs, 0),
    jitterMs: states.reduce((a, s) => a + s.jitterMs, 0),
    lossPct: random ? Math.round((1 - kept) * 100_000) / 1000 : null,
    queueMs: queues.length ? Math.max(...queues) : null,
  };
}

const OPEN: PathConditions = { capKbps: null, delayMs: 0, jitterMs: 0, lossPct: 0, queueMs: null };

/**
 * Sender k's run cut at every change of any condition on its path (rate, delay, jitter, loss, queue):
 * changes within SAME_CHANGE_S are one, a run of them spanning longer is a ramp phase followed by the
 * hold at its end. Phases never have zero length; times are seconds from the run's start.
 */
export function pathPhases(applied: readonly AppliedChange[], scenario: Scenario, sender: number, durationS: number): PathPhase[] {
  const path = senderPath(scenario, sender);
  const current = new Map<string, LinkState>();
  const conditions = () => pathConditions(path.flatMap((l) => (current.has(l) ? [current.get(l)!] : [])));
  const clusters: { from: number; to: number; before: PathConditions; after: PathConditions }[] = [];
  for (const change of [...applied].sort((x, y) => x.t - y.t)) {
    if (!path.includes(change.link)) continue;
    const before = conditions();
    current.set(change.link, change.state);
    const last = clusters.at(-1);
    if (last && change.t - last.to <= SAME_CHANGE_S) {
      last.to = change.t;
      last.after = conditions();
    } else {
      clusters.push({ from: change.t, to: change.t, before, after: conditions() });
    }
  }
  if (!clusters.length) return [{ from: 0, to: durationS, set: OPEN, rampFrom: null }];
  const phases: PathPhase[] = [];
  clusters.forEach((c, k) => {
    const end = Math.min(durationS, clusters[k + 1]?.from ?? durationS);
    const ramp = c.to - c.from > SAME_CHANGE_S;
    if (ramp) phases.push({ from: c.from, to: Math.min(c.to, end), set: c.after, rampFrom: c.before });
    const holdFrom = ramp ? c.to : c.from;
    if (end - holdFrom > 1e-6) phases.push({ from: holdFrom, to: end, set: c.after, rampFrom: null });
  });
  // A first change applied as the call connects starts the run; before a later one, nothing was set.
  if (clusters[0]!.from <= SAME_CHANGE_S) phases[0]!.from = 0;
  else phases.unshift({ from: 0, to: clusters[0]!.from, set: OPEN, rampFrom: null });
  return phases;
}

/** "cap 750 kbit/s, delay 50 ms, loss 5 %": the conditions that are set, for a phase's label. */
export function describeConditions(c: PathConditions): string {
  const parts = [c.capKbps === null ? 'no cap' : `cap ${c.capKbps} kbit/s`];
  if (c.delayMs) parts.push(`delay ${c.delayMs} ms`);
  if (c.jitterMs) parts.push(`jitter ${c.jitterMs} ms`);
  if (c.lossPct === null) parts.push('bursty loss');
  else if (c.lossPct) parts.push(`loss ${c.lossPct} %`);
  if (c.queueMs !== null) parts.push(`queue ${c.queueMs} ms`);
  return parts.join(', ');
}
