import { callScores, listeningMos, participantScores, type ScorePoint, scoreSummary } from '@rtcscope/diagnosis';
import { type CallDiagnosis, type CallIssue, type LiveDiagnosis, SCORE_FACTOR_NAMES, type ScoreFactorName } from '@rtcscope/protocol';
import type { Chart, Row } from './calldata.js';

/** A call's diagnosis as its page holds it: issues by id, every received stream's window scores, and its received audio's apart. */
export interface DiagnosisData {
  issues: Map<number, CallIssue>;
  scores: ScorePoint[];
  /** Each received audio stream's windows: what its listener heard, apart from what a conversation suffered. */
  heard: Pick<ScorePoint, 'participant' | 'ts' | 'mos' | 'lowers' | 'weight' | 'delayMs'>[];
  windowMs: number;
}

/** From the API's answer: its per-participant scores stand for the streams' (one point per participant and window, which is its score). */
export function diagnosisFromApi(d: CallDiagnosis): DiagnosisData {
  const scores = Object.entries(d.scores.participants).flatMap(([participant, windows]) =>
    windows.map((w) => ({ streamId: -1, participant, kind: 'video' as const, ts: w.ts, mos: w.mos, lowers: w.lowers, weight: 1 })),
  );
  const heard = d.scores.streams
    .filter((s) => s.kind === 'audio')
    .flatMap((s) => s.windows.map((w) => ({ participant: s.participantId, ...w })));
  return { issues: new Map(d.issues.map((i) => [i.id, i])), scores, heard, windowMs: d.scores.windowMs };
}

/** Adds a live change: issues replace their older state, scores join. */
export function applyDiagnosis(data: DiagnosisData, change: LiveDiagnosis): void {
  for (const issue of change.issues) data.issues.set(issue.id, issue);
  data.scores.push(
    ...change.scores.map((s) => ({
      streamId: s.streamId,
      participant: s.participantId,
      kind: s.kind,
      ts: s.ts,
      mos: s.mos,
      lowers: s.lowers,
      weight: s.weight,
    })),
  );
  data.heard.push(...change.scores.filter((s) => s.kind === 'audio').map((s) => ({ ...s, participant: s.participantId })));
}

/** Each participant's score per window (what it saw and heard), drawn at the window's middle. */
export function scoreChart(data: DiagnosisData): Chart {
  const rows = new Map<number, Row>();
  const series = [];
  for (const [participant, windows] of participantScores(data.scores)) {
    series.push({ key: participant, participantId: participant, line: 'received' as const });
    for (const w of windows) {
      const ts = w.ts + data.windowMs / 2;
      const row = rows.get(ts) ?? ({ ts } as Row);
      row[participant] = w.mos;
      rows.set(ts, row);
    }
  }
  return { rows: [...rows.values()].sort((a, b) => a.ts - b.ts), series: series.sort((a, b) => a.key.localeCompare(b.key)) };
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

/** The issues worth a sentence at the top: the worst first, then the longest. */
export function headlineIssues(issues: Iterable<CallIssue>, now: number): CallIssue[] {
  const length = (i: CallIssue) => (i.end ?? now) - i.start;
  return [...issues].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || length(b) - length(a));
}

/** An issue that is a cause of its own, with the issues elsewhere in the call that follow from it. */
export interface Finding {
  issue: CallIssue;
  consequences: CallIssue[];
}

/** The call's causes, each with its consequences under it: the worst first (counting its consequences), then the longest. */
export function findings(issues: Iterable<CallIssue>, now: number): Finding[] {
  const all = [...issues];
  const ids = new Set(all.map((i) => i.id));
  const groups = all
    .filter((i) => i.causeId === null || !ids.has(i.causeId))
    .map((issue) => ({
      issue,
      consequences: headlineIssues(
        all.filter((i) => i.causeId === issue.id),
        now,
      ),
    }));
  const worst = (f: Finding) => Math.min(...[f.issue, ...f.consequences].map((i) => SEVERITY_ORDER[i.severity]));
  const length = (i: CallIssue) => (i.end ?? now) - i.start;
  return groups.sort((a, b) => worst(a) - worst(b) || length(b.issue) - length(a.issue));
}

/** "downlink-loss" → "Downlink loss". */
/** Words of issue types written as people write them ("Cpu limitation", "High rtt" read as typos). */
const ACRONYMS: ReadonlySet<string> = new Set(['cpu', 'rtt', 'sfu', 'ice', 'turn', 'tcp', 'udp']);
export const issueName = (type: string) => {
  const words = type.split('-').map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w));
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
};

/** A factor that takes less than this from a participant's score on average is not worth a word. */
const NOTABLE_POINTS = 0.1;

/**
 * What lowers each participant's score, from `from` to `to`: each factor's mean over its windows of
 * the points it took (of the stream that scored lowest in each), the largest first, those notable only.
 */
export function whatLowers(
  data: DiagnosisData,
  from = -Infinity,
  to = Infinity,
): { participant: string; windows: number; factors: [ScoreFactorName, number][] }[] {
  return [...participantScores(data.scores)].map(([participant, all]) => {
    const windows = all.filter((w) => w.ts >= from && w.ts <= to);
    const factors = SCORE_FACTOR_NAMES.map((f): [ScoreFactorName, number] => [
      f,
      windows.reduce((sum, w) => sum + (w.lowers[f] ?? 0), 0) / Math.max(1, windows.length),
    ])
      .filter(([, points]) => points >= NOTABLE_POINTS)
      .sort((a, b) => b[1] - a[1]);
    return { participant, windows: windows.length, factors };
  });
}

/** The call's score: the mean over its windows of the mean over its participants (the API's summary). */
export const callScore = (data: DiagnosisData): number | null => scoreSummary(callScores(data.scores).map((c) => ({ mos: c.mean }))).mean;

/** What a participant heard, apart from what its conversation suffered: the weighted means over its received audio's windows. */
export interface HeardApart {
  participant: string;
  /** What a listener hears, 1–5 (`listeningMos`): the score with the delay's part given back. */
  listening: number;
  /** The audio score, which rates a conversation: the delay costs it besides. */
  conversation: number;
  /** Mouth to ear, ms; null where the windows were scored before it was kept. */
  delayMs: number | null;
}

export function heardApart(data: DiagnosisData, from = -Infinity, to = Infinity): HeardApart[] {
  const by = new Map<string, DiagnosisData['heard']>();
  for (const w of data.heard) if (w.ts >= from && w.ts <= to) by.set(w.participant, [...(by.get(w.participant) ?? []), w]);
  const weighted = (ws: DiagnosisData['heard'], f: (w: DiagnosisData['heard'][number]) => number) =>
    ws.reduce((a, w) => a + f(w) * w.weight, 0) / ws.reduce((a, w) => a + w.weight, 0);
  return [...by].map(([participant, ws]) => {
    const delayed = ws.filter((w) => w.delayMs !== undefined);
    return {
      participant,
      listening: weighted(ws, listeningMos),
      conversation: weighted(ws, (w) => w.mos),
      delayMs: delayed.length ? weighted(delayed, (w) => w.delayMs!) : null,
    };
  });
}
