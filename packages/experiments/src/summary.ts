import {
  callMeans,
  type CallMeans,
  jainIndex,
  mean,
  meanRoles,
  participantRates,
  type PhaseSummary,
  type StreamOwner,
  summarizePhases,
} from '@rtcscope/metrics';
import { type CallDetail, type Series, streamFieldIndex } from '@rtcscope/protocol';
import type { Scenario } from '@rtcscope/scenario';
import { type PathPhase, pathPhases } from './phases.js';
import type { RunResult } from './wire.js';

/** What one finished run measured: per flow and phase, and between calls on a shared bottleneck. */
export interface RunOutcome {
  run: RunSummary;
  sharedBottleneck: SharedBottleneckSummary | null;
}

/** A phase of a sender's path: what was set, and how its rate did. */
export interface FlowPhase extends PhaseSummary, PathPhase {
  /** In a pair, the far end's received video over the phase: mean frame rate and frame width (null otherwise). */
  receivedFps: number | null;
  receivedWidth: number | null;
}

/** One second of a sending participant's run. */
export interface FlowSecond {
  /** Seconds from the run's start. */
  t: number;
  /** What it sent, kbit/s. */
  kbps: number | null;
  /** What its far end received from it (in a pair), kbit/s. */
  receivedKbps: number | null;
  /** Mean RTT of its sent streams, ms. */
  rttMs: number | null;
}

export interface FlowSummary {
  participant: string;
  meanKbps: number | null;
  /** The rate this participant received (all its streams, per second), averaged over the run. */
  meanReceivedKbps: number | null;
  /** This participant's means by `MEAN_DEFINITIONS` (RTT of what it sent, loss and FPS of what it received). */
  meanRttMs: number | null;
  meanFps: number | null;
  meanLossPct: number | null;
  /** Mean frame height this participant received, px. */
  meanHeight: number | null;
  phases: FlowPhase[];
  /** Second by second, for the campaign page's plots. */
  perSecond: FlowSecond[];
}

export interface RunSummary {
  callId: string;
  /** When the call connected: second 0 of its flows' seconds and phases (null in outcomes stored before it was kept). */
  startedAt: number | null;
  scenario: string;
  backend: string;
  flows: FlowSummary[];
  /** Jain's index between the flows' mean sending rates. */
  jain: number | null;
  /** The call's means by `MEAN_DEFINITIONS`, over every participant: the calls list's numbers. */
  means: CallMeans;
  paper: Scenario['paper'];
}

const present = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null);

/**
 * Each participant's rate per second of the run, per direction (t: seconds from its start), by the
 * one definition of a participant's rate (`participantRates`).
 */
function ratesPerSecond(run: RunResult, series: Series, owner: (id: number) => StreamOwner | undefined) {
  const kbps = streamFieldIndex('kbps');
  const samples = series.streams.map((p) => ({ id: p.id, ts: p.ts, kbps: p.v[kbps] ?? null }));
  return participantRates(samples, owner, (ts) => Math.round((ts - run.startedAt) / 1000)).map((r) => ({
    t: r.ts,
    participant: r.participant,
    direction: r.direction,
    kbps: r.kbps,
  }));
}

/** Measured (from rtcscope's API) next to set (the applied schedule), per sending participant. */
export function summarizeRun(run: RunResult, scenario: Scenario, detail: CallDetail, series: Series): RunSummary {
  const k = {
    rtt: streamFieldIndex('rttMs'),
    fps: streamFieldIndex('fps'),
    loss: streamFieldIndex('lossPct'),
    width: streamFieldIndex('width'),
    height: streamFieldIndex('height'),
  };
  const owner = new Map<number, { participant: string; direction: 'in' | 'out'; kind: string }>();
  for (const p of detail.participants)
    for (const c of p.connections) for (const s of c.streams) owner.set(s.id, { participant: p.id, ...s });
  const durationS = (run.endedAt - run.startedAt) / 1000;
  const rates = ratesPerSecond(run, series, (id) => owner.get(id)).filter((r) => r.t >= 0 && r.t <= durationS);
  const samples = series.streams.flatMap((point) => {
    const s = owner.get(point.id);
    const v = (i: number) => point.v[i] ?? null;
    return s
      ? [
          {
            ...s,
            t: Math.round((point.ts - run.startedAt) / 1000),
            rttMs: v(k.rtt),
            lossPct: v(k.loss),
            fps: v(k.fps),
            width: v(k.width),
            height: v(k.height),
          },
        ]
      : [];
  });
  const pair = detail.participants.length === 2;

  const flows = detail.participants.map((p, sender): FlowSummary => {
    const own = samples.filter((s) => s.participant === p.id);
    const means = callMeans(own);
    const sent = rates.filter((r) => r.participant === p.id && r.direction === 'out');
    const ownReceived = rates.filter((r) => r.participant === p.id && r.direction === 'in');
    // In a pair, what the other end received is what crossed this sender's path.
    const other = pair ? detail.participants[1 - sender]!.id : null;
    const received = other === null ? null : rates.filter((r) => r.participant === other && r.direction === 'in');
    const rtt = new Map<number, number[]>();
    for (const s of own) if (meanRoles(s.direction, s.kind).rtt && s.rttMs !== null) rtt.set(s.t, [...(rtt.get(s.t) ?? []), s.rttMs]);
    const receivedAt = new Map(received?.map((r) => [r.t, r.kbps]));
    const seconds = [...new Set([...sent.map((r) => r.t), ...receivedAt.keys()])].sort((a, b) => a - b);
    const sentAt = new Map(sent.map((r) => [r.t, r.kbps]));
    const phases = pathPhases(run.applied, scenario, sender, durationS);
    const summaries = summarizePhases(
      sent,
      phases.map((ph) => ({ from: ph.from, to: ph.to, capKbps: ph.set.capKbps })),
      received,
    );
    const farVideo = samples.filter((s) => s.participant === other && s.direction === 'in' && s.kind === 'video');
    const farMean = (ph: PathPhase, pick: (s: (typeof farVideo)[number]) => number | null) =>
      mean(present(farVideo.filter((s) => s.t >= ph.from && s.t < ph.to).map(pick)));
    return {
      participant: p.id,
      meanKbps: mean(sent.map((r) => r.kbps)),
      meanReceivedKbps: mean(ownReceived.map((r) => r.kbps)),
      meanRttMs: means.rttMs,
      meanFps: means.fps,
      meanLossPct: means.lossPct,
      meanHeight: mean(own.filter((s) => s.direction === 'in' && s.kind === 'video' && s.height !== null).map((s) => s.height!)),
      phases: phases.map((ph, i) => ({
        ...summaries[i]!,
        ...ph,
        receivedFps: farMean(ph, (s) => s.fps),
        receivedWidth: farMean(ph, (s) => s.width),
      })),
      perSecond: seconds
        .filter((t) => t >= 0 && t <= durationS)
        .map((t) => ({ t, kbps: sentAt.get(t) ?? null, receivedKbps: receivedAt.get(t) ?? null, rttMs: mean(rtt.get(t) ?? []) })),
    };
  });
  return {
    callId: run.callId,
    startedAt: run.startedAt,
    scenario: scenario.id,
    backend: run.backend,
    flows,
    jain: jainIndex(flows.map((f) => f.meanKbps)),
    means: callMeans(samples),
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
    const perSecond = new Map(
      ratesPerSecond(run, series, (id) => (out.has(id) ? { participant: 'p0', direction: 'out' as const } : undefined)).map((r) => [
        r.t,
        r.kbps,
      ]),
    );
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
