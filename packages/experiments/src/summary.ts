import { jainIndex, participantRates, type PhaseSummary, type RatePoint, type StreamOwner, summarizePhases } from '@rtcscope/metrics';
import { type CallDetail, type Series, streamFieldIndex } from '@rtcscope/protocol';
import type { LinkState, Scenario } from '@rtcscope/scenario';
import type { RunOutcome } from './results.js';
import type { AppliedChange, RunResult } from './wire.js';

export interface FlowSummary {
  participant: string;
  meanKbps: number | null;
  meanRttMs: number | null;
  meanFps: number | null;
  meanLossPct: number | null;
  /** Mean frame height this participant received, px. */
  meanHeight: number | null;
  phases: PhaseSummary[];
}

export interface RunSummary {
  callId: string;
  scenario: string;
  backend: string;
  flows: FlowSummary[];
  /** Jain's index between the flows' mean sending rates. */
  jain: number | null;
  paper: Scenario['paper'];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * Each participant's sending rate per second of the run (t: seconds from its start), by the one
 * definition of a participant's rate (`participantRates`).
 */
function ratesPerSecond(run: RunResult, series: Series, owner: (id: number) => StreamOwner | undefined): { t: number; participant: string; kbps: number }[] {
  const kbps = streamFieldIndex('kbps');
  const samples = series.streams.map((p) => ({ id: p.id, ts: p.ts, kbps: p.v[kbps] ?? null }));
  return participantRates(samples, owner, (ts) => Math.round((ts - run.startedAt) / 1000))
    .filter((r) => r.direction === 'out')
    .map((r) => ({ t: r.ts, participant: r.participant, kbps: r.kbps }));
}

/**
 * The cap on participant k's sending over time: the narrowest link its media crosses. In a mesh its
 * streams to the others share its uplink, so the uplink is the cap of its total.
 */
function capTimeline(applied: readonly AppliedChange[], scenario: Scenario, sender: number): { t: number; capKbps: number | null }[] {
  const pair = scenario.participants.count === 2;
  const path = scenario.links.mode === 'shared' ? ['bottleneck'] : [`p${sender}-up`, ...(pair ? [`p${1 - sender}-down`] : [])];
  const current = new Map<string, LinkState>();
  const out: { t: number; capKbps: number | null }[] = [];
  for (const change of [...applied].sort((x, y) => x.t - y.t)) {
    current.set(change.link, change.state);
    if (!path.includes(change.link)) continue;
    const rates = path.map((l) => current.get(l)?.rateKbps ?? null).filter((r): r is number => r !== null);
    const capKbps = rates.length ? Math.min(...rates) : null;
    if (out.at(-1)?.capKbps !== capKbps) out.push({ t: change.t, capKbps });
  }
  return out;
}

/** Measured (from rtcscope's API) next to set (the applied schedule), per sending participant. */
export function summarizeRun(run: RunResult, scenario: Scenario, detail: CallDetail, series: Series): RunSummary {
  const k = { rtt: streamFieldIndex('rttMs'), fps: streamFieldIndex('fps'), loss: streamFieldIndex('lossPct'), height: streamFieldIndex('height') };
  const owner = new Map<number, { participant: string; direction: 'in' | 'out'; kind: string }>();
  for (const p of detail.participants) for (const c of p.connections) for (const s of c.streams) owner.set(s.id, { participant: p.id, ...s });
  const durationS = (run.endedAt - run.startedAt) / 1000;
  const sending = ratesPerSecond(run, series, (id) => owner.get(id));

  const flows = detail.participants.map((p, sender): FlowSummary => {
    const rtt: number[] = [];
    const fps: number[] = [];
    const loss: number[] = [];
    const height: number[] = [];
    for (const point of series.streams) {
      const s = owner.get(point.id);
      if (!s || s.participant !== p.id) continue;
      const t = Math.round((point.ts - run.startedAt) / 1000);
      if (t < 0 || t > durationS) continue;
      const v = (i: number) => point.v[i] ?? null;
      if (s.direction === 'out') {
        if (s.kind === 'video' && v(k.rtt) !== null) rtt.push(v(k.rtt)!);
      } else if (s.kind === 'video') {
        if (v(k.fps) !== null) fps.push(v(k.fps)!);
        if (v(k.loss) !== null) loss.push(v(k.loss)!);
        if (v(k.height) !== null) height.push(v(k.height)!);
      }
    }
    const rates: RatePoint[] = sending.filter((r) => r.participant === p.id && r.t >= 0 && r.t <= durationS).map(({ t, kbps }) => ({ t, kbps }));
    const caps = capTimeline(run.applied, scenario, sender);
    const phases = caps.map((c, i) => ({ from: c.t, to: caps[i + 1]?.t ?? durationS, capKbps: c.capKbps }));
    return {
      participant: p.id,
      meanKbps: mean(rates.map((r) => r.kbps)),
      meanRttMs: mean(rtt),
      meanFps: mean(fps),
      meanLossPct: mean(loss),
      meanHeight: mean(height),
      phases: summarizePhases(rates, phases),
    };
  });
  return {
    callId: run.callId,
    scenario: scenario.id,
    backend: run.backend,
    flows,
    jain: jainIndex(flows.map((f) => f.meanKbps)),
    paper: scenario.paper,
  };
}

export interface CallRates {
  callId: string;
  detail: CallDetail;
  series: Series;
}

export interface SharedBottleneckSummary {
  /** Each call's mean forward rate (its caller's sending rate) while it was in the run. */
  calls: { callId: string; meanKbps: number | null }[];
  /** Each TCP bulk flow's mean goodput while it ran. */
  tcp: { label: string; meanKbps: number | null }[];
  /** Per number of flows (calls and TCP) on the bottleneck at once: mean Jain's index between them and their summed rate. */
  byCompeting: { flows: number; seconds: number; meanJain: number | null; meanTotalKbps: number | null }[];
}

/** Competing calls and TCP flows on one bottleneck: who got what, and how fair it was, second by second. */
export function summarizeSharedBottleneck(run: RunResult, perCall: readonly CallRates[]): SharedBottleneckSummary {
  const bySecond = new Map<number, Map<string, number>>();
  const add = (flow: string, perSecond: Map<number, number>) => {
    for (const [t, rate] of perSecond) {
      const at = bySecond.get(t) ?? new Map<string, number>();
      at.set(flow, rate);
      bySecond.set(t, at);
    }
  };
  const calls = perCall.map(({ callId, detail, series }) => {
    const caller = detail.participants.find((p) => p.id === 'p0');
    const out = new Set(caller?.connections.flatMap((c) => c.streams.filter((s) => s.direction === 'out').map((s) => s.id)) ?? []);
    const perSecond = new Map(ratesPerSecond(run, series, (id) => (out.has(id) ? { participant: 'p0', direction: 'out' } : undefined)).map((r) => [r.t, r.kbps]));
    add(callId, perSecond);
    return { callId, meanKbps: mean([...perSecond.values()]) };
  });
  const tcp = (run.tcpFlows ?? []).map((f) => {
    const perSecond = new Map(f.rates.filter((r) => r.t > f.joinedAt && r.t <= f.leftAt).map((r) => [Math.round(r.t), r.kbps]));
    add(`tcp:${f.label}`, perSecond);
    return { label: f.label, meanKbps: mean([...perSecond.values()]) };
  });
  const groups = new Map<number, { jain: number[]; total: number[] }>();
  for (const rates of bySecond.values()) {
    const values = [...rates.values()];
    const g = groups.get(values.length) ?? { jain: [], total: [] };
    const j = jainIndex(values);
    if (j !== null) g.jain.push(j);
    g.total.push(values.reduce((a, b) => a + b, 0));
    groups.set(values.length, g);
  }
  return {
    calls,
    tcp,
    byCompeting: [...groups]
      .sort(([a], [b]) => a - b)
      .map(([n, g]) => ({ flows: n, seconds: g.total.length, meanJain: mean(g.jain), meanTotalKbps: mean(g.total) })),
  };
}

/** Points of each call's series a run's outcome is computed from: every second of an hour-long run. */
export const OUTCOME_SERIES_POINTS = 10_000;

/**
 * What a run measured, from what rtcscope stored of its calls (the first is the main call, the others
 * its cross traffic), each loaded by `load` with `OUTCOME_SERIES_POINTS` (the server from its database,
 * the CLI over the REST API); null: the call stored nothing.
 */
export async function measureRun(
  result: RunResult,
  scenario: Scenario,
  load: (callId: string) => Promise<{ detail: CallDetail; series: Series } | null>,
): Promise<RunOutcome> {
  const perCall: CallRates[] = [];
  for (const c of result.calls) {
    const loaded = await load(c.callId);
    if (!loaded) throw new Error(`call ${c.callId} of the run stored no samples`);
    perCall.push({ callId: c.callId, ...loaded });
  }
  const main = perCall[0];
  if (!main) throw new Error('the run reported no calls');
  return {
    run: summarizeRun(result, scenario, main.detail, main.series),
    sharedBottleneck: perCall.length > 1 || result.tcpFlows?.length ? summarizeSharedBottleneck(result, perCall) : null,
  };
}
