import { toCsvText } from '@rtcscope/protocol';
import { mean, MEAN_DEFINITIONS } from '@rtcscope/metrics';
import type { Scenario } from '@rtcscope/scenario';
import type { FlowPhase, FlowSummary, RunOutcome, RunSummary, SharedBottleneckSummary } from './summary.js';

/**
 * The figures a run is compared by. Keys are the metric names the scenario library's paper figures
 * use, so a result and the paper's value for it sit side by side.
 */
export const METRICS = [
  {
    key: 'dataRateKbps',
    label: 'Mean data rate',
    unit: 'kbit/s',
    digits: 0,
    definition: "each sending participant's rate (all its streams, per second) averaged over the run, then over the participants",
  },
  {
    key: 'utilization',
    label: 'Bandwidth utilization',
    unit: '%',
    digits: 0,
    definition:
      "per phase with a cap: the mean rate the far end received over the narrowest cap on the sender's path (at most 100 %), averaged over phases and senders",
  },
  {
    key: 'steadyAfterS',
    label: 'Time to steady state after a change',
    unit: 's',
    digits: 1,
    definition:
      "per phase after the first: seconds of the run until the sent rate stays within ±15 % of where it settled (the mean of the phase's second half)",
  },
  {
    key: 'phaseS',
    label: 'Shortest phase after a change',
    unit: 's',
    digits: 1,
    definition:
      "seconds of the run from a change on a sender's path to the next (a scaled run's are shorter): a time to steady state is measured within its phase, so it is at most this",
  },
  {
    key: 'startupS',
    label: 'Time to a stable rate',
    unit: 's',
    digits: 1,
    definition:
      "seconds from the call's start until the sent rate stays within ±15 % of where the first phase settled, averaged over the senders",
  },
  {
    key: 'downUpRatio',
    label: 'Downlink over uplink',
    unit: '×',
    digits: 2,
    definition:
      "each participant's received rate over its sent rate (run means), averaged over the participants: with n people in a mesh or through an SFU, about n − 1",
  },
  { key: 'rttMs', label: 'Mean RTT', unit: 'ms', digits: 1, definition: MEAN_DEFINITIONS.rttMs },
  { key: 'fps', label: 'Mean received FPS', unit: 'fps', digits: 1, definition: MEAN_DEFINITIONS.fps },
  {
    key: 'resolution',
    label: 'Mean received frame height',
    unit: 'px',
    digits: 0,
    definition: 'mean frame height over every received video stream and sample',
  },
  { key: 'lossPct', label: 'Mean loss', unit: '%', digits: 2, definition: MEAN_DEFINITIONS.lossPct },
  {
    key: 'jain',
    label: "Jain's index between the flows",
    unit: '',
    digits: 3,
    definition: "(Σx)² / (n·Σx²) over the participants' mean sending rates; 1 = all equal",
  },
  {
    key: 'jainCalls',
    label: "Jain's index between competing flows (calls, TCP)",
    unit: '',
    digits: 3,
    definition: "Jain's index between the flows on the bottleneck each second, averaged over the seconds two or more competed",
  },
  {
    key: 'totalKbps',
    label: 'Competing flows together',
    unit: 'kbit/s',
    digits: 0,
    definition: "the flows' summed rate on the bottleneck, averaged over the seconds two or more competed",
  },
  {
    key: 'tcpKbps',
    label: 'TCP cross traffic',
    unit: 'kbit/s',
    digits: 0,
    definition: "each TCP flow's goodput while it ran, as its far end counted it",
  },
] as const;
export type MetricKey = (typeof METRICS)[number]['key'];
export type Headline = Record<MetricKey, number | null>;

const present = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null);

/** Time-weighted mean of a figure over the seconds two or more calls competed. */
function whileCompeting(
  s: SharedBottleneckSummary,
  pick: (g: SharedBottleneckSummary['byCompeting'][number]) => number | null,
): number | null {
  const groups = s.byCompeting.filter((g) => g.flows >= 2 && pick(g) !== null);
  const seconds = groups.reduce((a, g) => a + g.seconds, 0);
  return seconds ? groups.reduce((a, g) => a + pick(g)! * g.seconds, 0) / seconds : null;
}

type StoredFlow = Omit<FlowSummary, 'phases' | 'perSecond' | 'meanReceivedKbps'> & {
  meanReceivedKbps?: number | null;
  phases: (Partial<FlowPhase> & Pick<FlowPhase, 'from' | 'to' | 'capKbps'>)[];
  perSecond?: FlowSummary['perSecond'];
};
type StoredOutcome = {
  run: Omit<RunSummary, 'means' | 'flows' | 'startedAt'> & { means?: RunSummary['means']; startedAt?: number; flows: StoredFlow[] };
  sharedBottleneck: RunOutcome['sharedBottleneck'];
};

/**
 * A run's outcome as stored, in today's shape: outcomes stored before phases carried their conditions
 * and the call's means were kept get them from what they have (a phase's cap, the flows' means).
 */
export function readOutcome(stored: unknown): RunOutcome {
  const o = stored as StoredOutcome;
  const flows = o.run.flows.map((f): FlowSummary => ({
    meanReceivedKbps: null,
    ...f,
    perSecond: f.perSecond ?? [],
    phases: f.phases.map((p) => ({
      receivedKbps: null,
      meanKbps: null,
      settledKbps: null,
      utilization: null,
      steadyAfter: null,
      set: { capKbps: p.capKbps, delayMs: 0, jitterMs: 0, lossPct: 0, queueMs: null },
      rampFrom: null,
      receivedFps: null,
      receivedWidth: null,
      ...p,
    })),
  }));
  const means = o.run.means ?? {
    rttMs: mean(present(flows.map((f) => f.meanRttMs))),
    lossPct: mean(present(flows.map((f) => f.meanLossPct))),
    fps: mean(present(flows.map((f) => f.meanFps))),
  };
  return { run: { ...o.run, startedAt: o.run.startedAt ?? null, flows, means }, sharedBottleneck: o.sharedBottleneck };
}

/** One run's outcome as the flat figures of METRICS (utilization in %). */
export function headline(o: RunOutcome): Headline {
  const { flows, means } = o.run;
  const phases = flows.flatMap((f) => f.phases);
  const utilization = mean(present(phases.map((p) => p.utilization)));
  return {
    dataRateKbps: mean(present(flows.map((f) => f.meanKbps))),
    utilization: utilization === null ? null : utilization * 100,
    // The first phase includes the call's own start-up, which is not a reaction to a change.
    steadyAfterS: mean(present(flows.flatMap((f) => f.phases.slice(1).map((p) => p.steadyAfter)))),
    phaseS: present(flows.flatMap((f) => f.phases.slice(1).map((p) => p.to - p.from))).reduce<number | null>(
      (a, b) => (a === null ? b : Math.min(a, b)),
      null,
    ),
    startupS: mean(present(flows.map((f) => f.phases[0]?.steadyAfter ?? null))),
    downUpRatio: mean(present(flows.map((f) => (f.meanReceivedKbps !== null && f.meanKbps ? f.meanReceivedKbps / f.meanKbps : null)))),
    rttMs: means.rttMs,
    fps: means.fps,
    resolution: mean(present(flows.map((f) => f.meanHeight))),
    lossPct: means.lossPct,
    jain: o.run.jain,
    jainCalls: o.sharedBottleneck ? whileCompeting(o.sharedBottleneck, (g) => g.meanJain) : null,
    totalKbps: o.sharedBottleneck ? whileCompeting(o.sharedBottleneck, (g) => g.meanTotalKbps) : null,
    tcpKbps: o.sharedBottleneck?.tcp.length ? mean(present(o.sharedBottleneck.tcp.map((f) => f.meanKbps))) : null,
  };
}

/**
 * The phase length that bounds a measured time to steady state, when it keeps the figure from being
 * compared with the paper's: a rate is judged settled by the mean of its phase's second half, so a
 * figure of half the phase or more cannot show here (a scaled run of a scenario whose paper took minutes).
 */
export function steadyStateBound(spread: Record<MetricKey, Spread>, paper: readonly PaperFigure[]): number | null {
  const shortest = spread.phaseS.min;
  if (shortest === null) return null;
  return paper.some((p) => typeof p.value === 'number' && p.value >= shortest / 2) ? shortest : null;
}

export interface Spread {
  n: number;
  mean: number | null;
  sd: number | null;
  min: number | null;
  max: number | null;
}

/** Each figure over repetitions: mean, sample standard deviation, range. Missing values are skipped. */
export function overRepetitions(headlines: readonly Headline[]): Record<MetricKey, Spread> {
  const out = {} as Record<MetricKey, Spread>;
  for (const { key } of METRICS) {
    const xs = present(headlines.map((h) => h[key]));
    const m = mean(xs);
    const sd = m !== null && xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) : null;
    out[key] = { n: xs.length, mean: m, sd, min: xs.length ? Math.min(...xs) : null, max: xs.length ? Math.max(...xs) : null };
  }
  return out;
}

export interface PaperFigure {
  label: string;
  value: number | string;
  source: string | null;
}

/** The paper's values for a figure, where the scenario carries some (several labels may share a metric). */
export function paperFigures(scenario: Pick<Scenario, 'paper'> | null | undefined, key: string): PaperFigure[] {
  return (scenario?.paper?.figures ?? [])
    .filter((f) => f.metric === key)
    .map((f) => ({ label: f.label, value: f.value, source: f.source ?? null }));
}

/** Figures the paper gives that no run measures (e.g. a mesh's rate over the 2-party rate), by metric. */
export function paperOnlyMetrics(scenario: Pick<Scenario, 'paper'> | null | undefined): string[] {
  const known = new Set<string>(METRICS.map((m) => m.key));
  return [...new Set((scenario?.paper?.figures ?? []).map((f) => f.metric).filter((m) => !known.has(m)))];
}

export interface ExportRow {
  campaign: string;
  run: number;
  repetition: number;
  status: string;
  headline: Headline | null;
}

/** One line per run with every figure in its column; empty cells where a run measured nothing. */
export function toCsv(rows: readonly ExportRow[]): string {
  const header = ['campaign', 'run', 'repetition', 'status', ...METRICS.map((m) => (m.unit ? `${m.key} (${m.unit})` : m.key))];
  return toCsvText(
    header,
    rows.map((r) => [
      r.campaign,
      r.run,
      r.repetition,
      r.status,
      ...METRICS.map((m) => {
        const v = r.headline?.[m.key];
        return v === null || v === undefined ? null : Number(v.toFixed(m.digits + 2));
      }),
    ]),
  );
}
