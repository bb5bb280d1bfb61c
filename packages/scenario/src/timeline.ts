import { rampValue } from './ramp.js';
import type { Conditions, Loss, Ramp, RampParam, Scenario, Step } from './schema.js';
import { isRamp } from './validate.js';

/** A link's complete state: what the emulator applies. */
export interface LinkState {
  rateKbps: number | null;
  delayMs: number;
  jitterMs: number;
  loss: Loss;
  queueMs: number | null;
}

/** `bottleneck`, participant k's `p{k}-up` / `p{k}-down`, or the SFU's `sfu-up` / `sfu-down`. */
export type LinkId = string;

export interface TimelinePoint {
  /** Seconds from the start of the run, after time scaling. */
  t: number;
  link: LinkId;
  state: LinkState;
}

export interface Timeline {
  links: LinkId[];
  /** Every change of any link, in time order; t = 0 holds each link's initial state. */
  points: TimelinePoint[];
  durationS: number;
}

const NONE: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };

/**
 * Turns a scenario into the list of link states to apply and when: steps as they are, ramps as a
 * step every `everyS` seconds (0.5 s unless set), all times multiplied by the scenario's time scale.
 */
export function compileTimeline(s: Scenario): Timeline {
  const scale = s.timeScale;
  const links = linkIds(s);
  const states = new Map<LinkId, LinkState>();
  const initial = (id: LinkId): Conditions => {
    if (s.links.mode === 'shared') return s.links.bottleneck;
    if (id.startsWith('sfu-')) return s.links.sfu ?? {};
    return id.endsWith('-up') ? s.links.uplink : s.links.downlink;
  };
  for (const id of links) states.set(id, apply(NONE, initial(id)));

  const changes: { t: number; order: number; links: LinkId[]; update: (state: LinkState) => LinkState }[] = [];
  s.schedule.forEach((change, order) => {
    const targets = targetsOf(s, change);
    if (!isRamp(change)) {
      changes.push({ t: change.at * scale, order, links: targets, update: (state) => apply(state, change.set) });
      return;
    }
    const start = change.at * scale;
    const end = change.until * scale;
    const every = change.ramp.everyS ?? 0.5;
    for (let t = start; t < end + 1e-9; t = Math.min(end, t + every)) {
      const value = rampValue(change.ramp.from, change.ramp.to, change.ramp.shape, (t - start) / (end - start));
      changes.push({ t, order, links: targets, update: (state) => withParam(state, change.ramp.param, value) });
      if (t === end) break;
    }
  });
  changes.sort((a, b) => a.t - b.t || a.order - b.order);

  const points: TimelinePoint[] = links.map((link) => ({ t: 0, link, state: states.get(link)! }));
  for (const change of changes) {
    for (const link of change.links) {
      const next = change.update(states.get(link)!);
      states.set(link, next);
      const last = points.findLast((p) => p.link === link);
      if (last && last.t === round(change.t)) last.state = next;
      else points.push({ t: round(change.t), link, state: next });
    }
  }
  return { links, points, durationS: s.durationS * scale };
}

/** The state of every link at time t (scaled seconds). */
export function stateAt(timeline: Timeline, t: number): Map<LinkId, LinkState> {
  const out = new Map<LinkId, LinkState>();
  for (const p of timeline.points) if (p.t <= t) out.set(p.link, p.state);
  return out;
}

/** Every emulated link of a scenario: the bottleneck, or each participant's two (and, through an SFU, the SFU's own two). */
export function linkIds(s: Scenario): LinkId[] {
  if (s.links.mode === 'shared') return ['bottleneck'];
  const participants = Array.from({ length: s.participants.count }, (_, k) => [`p${k}-up`, `p${k}-down`]).flat();
  return s.participants.topology === 'sfu' ? [...participants, ...SFU_LINKS] : participants;
}

const SFU_LINKS = ['sfu-up', 'sfu-down'];

function targetsOf(s: Scenario, change: Step | Ramp): LinkId[] {
  if (s.links.mode === 'shared') return ['bottleneck'];
  const on = change.on ?? 'both';
  if (on === 'sfu') return SFU_LINKS;
  const who = change.participant === undefined ? [...Array(s.participants.count).keys()] : [change.participant];
  return who.flatMap((k) => [...(on !== 'downlink' ? [`p${k}-up`] : []), ...(on !== 'uplink' ? [`p${k}-down`] : [])]);
}

function apply(state: LinkState, set: Conditions): LinkState {
  return {
    rateKbps: set.rateKbps === undefined ? state.rateKbps : set.rateKbps,
    delayMs: set.delayMs ?? state.delayMs,
    jitterMs: set.jitterMs ?? state.jitterMs,
    loss: set.loss ?? state.loss,
    queueMs: set.queueMs ?? state.queueMs,
  };
}

function withParam(state: LinkState, param: RampParam, value: number): LinkState {
  if (param === 'lossPct') return { ...state, loss: { model: 'random', pct: round(value) } };
  return { ...state, [param]: round(value) };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
