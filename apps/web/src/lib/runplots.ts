import { mean } from '@rtcscope/metrics';
import { type FlowPhase, type RunOutcome } from '@rtcscope/experiments';
import type { CallDiagnosis, IssueSeverity } from '@rtcscope/protocol';
import type { Scenario } from '@rtcscope/scenario';

/**
 * The data of a campaign's plots, drawn like the papers' figures: per participant, its rate (or RTT)
 * over the repetitions' seconds — mean and range — beside what the lab set and what the paper reports.
 * Time is the scenario's, in seconds (a run at time scale 0.1 takes a tenth of it), so runs of any
 * scale, and the paper, share one axis.
 */

export type PlotRow = { t: number } & Record<string, number | [number, number] | null>;

export interface Plot {
  rows: PlotRow[];
  participants: string[];
}

function phaseAt(phases: readonly FlowPhase[], t: number): FlowPhase | undefined {
  return phases.find((p) => t >= p.from && t < p.to) ?? (t >= (phases.at(-1)?.to ?? Infinity) ? phases.at(-1) : undefined);
}

function participantsOf(runs: readonly RunOutcome[]): string[] {
  return [
    ...new Set(runs.flatMap((o) => o.run.flows.filter((f) => f.perSecond.some((s) => s.kbps !== null)).map((f) => f.participant))),
  ].sort();
}

/** Per scenario second, each participant's value over the repetitions: `${p}` the mean, `${p} range` [min, max]. */
function overRepetitions(
  runs: readonly RunOutcome[],
  scale: number,
  value: (s: RunOutcome['run']['flows'][number]['perSecond'][number]) => number | null,
): Map<number, PlotRow> {
  const at = new Map<number, Map<string, number[]>>();
  for (const o of runs) {
    for (const f of o.run.flows) {
      for (const s of f.perSecond) {
        const v = value(s);
        if (v === null) continue;
        const t = Math.round((s.t / scale) * 1000) / 1000;
        const cell = at.get(t) ?? new Map<string, number[]>();
        cell.set(f.participant, [...(cell.get(f.participant) ?? []), v]);
        at.set(t, cell);
      }
    }
  }
  const rows = new Map<number, PlotRow>();
  for (const [t, cell] of [...at].sort(([a], [b]) => a - b)) {
    const row: PlotRow = { t };
    for (const [p, xs] of cell) {
      row[p] = mean(xs);
      row[`${p} range`] = [Math.min(...xs), Math.max(...xs)];
    }
    rows.set(t, row);
  }
  return rows;
}

/** Sending rate against the cap on each sender's path, with the paper's rates where it gives some. */
export function ratePlot(runs: readonly RunOutcome[], scale: number, paper: Scenario['paper']): Plot {
  const rows = overRepetitions(runs, scale, (s) => s.kbps);
  const first = runs[0];
  for (const row of rows.values()) {
    for (const f of first?.run.flows ?? []) {
      const phase = phaseAt(f.phases, row.t * scale);
      if (phase) row[`${f.participant} cap`] = phase.set.capKbps;
    }
    row.paper = paper?.rates?.find((r) => row.t >= r.fromS && row.t < r.toS)?.kbps ?? null;
  }
  return { rows: [...rows.values()], participants: participantsOf(runs) };
}

/**
 * RTT against the RTT the lab set: in a pair the delays of both senders' paths (there and back), on a
 * shared bottleneck twice its delay.
 */
export function rttPlot(runs: readonly RunOutcome[], scale: number, pair: boolean): Plot {
  const rows = overRepetitions(runs, scale, (s) => s.rttMs);
  const flows = runs[0]?.run.flows ?? [];
  for (const row of rows.values()) {
    const delays = flows.map((f) => phaseAt(f.phases, row.t * scale)?.set.delayMs ?? null).filter((d): d is number => d !== null);
    row.set = !delays.length ? null : pair ? delays.reduce((a, b) => a + b, 0) : 2 * delays[0]!;
  }
  return { rows: [...rows.values()], participants: participantsOf(runs) };
}

export interface LossPoint {
  lossPct: number;
  /** Per participant: the settled sending rate under that loss, mean over phases and repetitions. */
  kbps: Record<string, number>;
}

/** Settled rate per set loss level (the papers' rate-against-loss): only for runs whose loss changes. */
export function lossPlot(runs: readonly RunOutcome[]): LossPoint[] {
  const by = new Map<number, Map<string, number[]>>();
  for (const o of runs) {
    for (const f of o.run.flows) {
      for (const p of f.phases) {
        if (p.set.lossPct === null || p.settledKbps === null || p.rampFrom) continue;
        const cell = by.get(p.set.lossPct) ?? new Map<string, number[]>();
        cell.set(f.participant, [...(cell.get(f.participant) ?? []), p.settledKbps]);
        by.set(p.set.lossPct, cell);
      }
    }
  }
  if (by.size < 2) return [];
  return [...by]
    .sort(([a], [b]) => a - b)
    .map(([lossPct, cell]) => ({ lossPct, kbps: Object.fromEntries([...cell].map(([p, xs]) => [p, mean(xs)!])) }));
}

export interface PhaseRow {
  participant: string;
  /** Scenario seconds. */
  from: number;
  to: number;
  set: string;
  meanKbps: number | null;
  settledKbps: number | null;
  receivedKbps: number | null;
  /** %, at most 100. */
  utilization: number | null;
  /** Seconds of the run, not of the scenario: a call takes as long to settle at any time scale. */
  steadyAfterS: number | null;
  /** In a pair, the frame rate and width of the video the far end received over the phase. */
  receivedFps: number | null;
  receivedWidth: number | null;
  /** Repetitions that had this phase. */
  n: number;
}

/** What the diagnosis made of a phase over the repetitions: the call's score, and the issues it raised then. */
export interface PhaseJudgement {
  /** The call's mean score over the 5-s windows that start within the phase, averaged over repetitions. */
  score: number | null;
  /** Issues that started within the phase, by participant and type: in how many repetitions, worst severity. */
  issues: { participant: string; type: string; severity: IssueSeverity; runs: number }[];
  /** Repetitions whose diagnosis was read. */
  judged: number;
}

const SEVERITY_RANK: Record<IssueSeverity, number> = { info: 0, warning: 1, critical: 2 };

/**
 * Each phase row beside what the diagnosis found in the same seconds of each repetition's call
 * (`diagnoses` by call id; runs stored before their start was kept cannot be placed, and are left out).
 */
export function phaseJudgements(
  rows: readonly PhaseRow[],
  runs: readonly RunOutcome[],
  scale: number,
  diagnoses: ReadonlyMap<string, CallDiagnosis>,
): PhaseJudgement[] {
  const placed = runs.flatMap((o) => {
    const d = diagnoses.get(o.run.callId);
    return d && o.run.startedAt !== null ? [{ startedAt: o.run.startedAt, d }] : [];
  });
  return rows.map((row) => {
    const scores: number[] = [];
    const issues = new Map<string, PhaseJudgement['issues'][number]>();
    for (const { startedAt, d } of placed) {
      const [from, to] = [startedAt + row.from * scale * 1000, startedAt + row.to * scale * 1000];
      const windows = d.scores.call.filter((w) => w.ts >= from && w.ts < to).map((w) => w.mean);
      const score = mean(windows);
      if (score !== null) scores.push(score);
      const seen = new Set<string>();
      for (const i of d.issues.filter((i) => i.start >= from && i.start < to)) {
        const key = `${i.participantId} ${i.type}`;
        const at = issues.get(key) ?? { participant: i.participantId, type: i.type, severity: i.severity, runs: 0 };
        if (SEVERITY_RANK[i.severity] > SEVERITY_RANK[at.severity]) at.severity = i.severity;
        if (!seen.has(key)) at.runs++;
        seen.add(key);
        issues.set(key, at);
      }
    }
    return {
      score: mean(scores),
      issues: [...issues.values()].sort((a, b) => a.participant.localeCompare(b.participant) || a.type.localeCompare(b.type)),
      judged: placed.length,
    };
  });
}

/**
 * Each sender's phases with what was set and how its rate did, averaged over the repetitions (which
 * share the schedule, so the k-th phase of each is the same phase).
 */
export function phaseRows(runs: readonly RunOutcome[], scale: number, describe: (p: FlowPhase) => string): PhaseRow[] {
  const first = runs[0];
  if (!first) return [];
  const flows = [...first.run.flows].sort((a, b) => a.participant.localeCompare(b.participant));
  return flows.flatMap((flow) => {
    if (!flow.perSecond.some((s) => s.kbps !== null) && flow.meanKbps === null) return [];
    return flow.phases.map((phase, k): PhaseRow => {
      const same = runs
        .map((o) => o.run.flows.find((f) => f.participant === flow.participant)?.phases[k])
        .filter((p): p is FlowPhase => p !== undefined);
      const avg = (pick: (p: FlowPhase) => number | null) => mean(same.map(pick).filter((v): v is number => v !== null));
      const utilization = avg((p) => p.utilization);
      return {
        participant: flow.participant,
        from: phase.from / scale,
        to: phase.to / scale,
        set: describe(phase),
        meanKbps: avg((p) => p.meanKbps),
        settledKbps: avg((p) => p.settledKbps),
        receivedKbps: avg((p) => p.receivedKbps),
        utilization: utilization === null ? null : utilization * 100,
        steadyAfterS: avg((p) => p.steadyAfter),
        receivedFps: avg((p) => p.receivedFps),
        receivedWidth: avg((p) => p.receivedWidth),
        n: same.length,
      };
    });
  });
}

/** Two campaigns' rates on one axis: per scenario second, the mean over participants and repetitions of each. */
export function comparePlot(
  a: { runs: readonly RunOutcome[]; scale: number },
  b: { runs: readonly RunOutcome[]; scale: number },
): PlotRow[] {
  const rows = new Map<number, PlotRow>();
  for (const [key, side] of [
    ['A', a],
    ['B', b],
  ] as const) {
    for (const row of overRepetitions(side.runs, side.scale, (s) => s.kbps).values()) {
      const values = Object.entries(row)
        .filter(([k, v]) => k !== 't' && !k.endsWith(' range') && typeof v === 'number')
        .map(([, v]) => v as number);
      const at = rows.get(row.t) ?? { t: row.t };
      at[key] = mean(values);
      rows.set(row.t, at);
    }
  }
  return [...rows.values()].sort((x, y) => x.t - y.t);
}
