import { bootstrapInterval, mean, pearson, spearman } from '@rtcscope/metrics';
import { vmafToMos } from './scale.js';

/** One window of a calibration call: the score rtcscope gave the received media. */
export interface CalibratedWindow {
  content: string;
  /** The impairment family of the window's call; `clean` calls are counted with every family. */
  family: string;
  score: number | null;
}

/** A window of received video, measured against the clip sent. */
export interface ScoredWindow extends CalibratedWindow {
  vmaf: number | null;
  ssim: number | null;
}

/** A window of received audio, measured against the speech sent. */
export interface HeardWindow extends CalibratedWindow {
  /** PESQ (P.862.2 wideband) MOS-LQO, 1.04–4.64. */
  pesq: number | null;
  /** ViSQOL v3 (speech mode) MOS-LQO, 1–5; absent in runs before it was measured. */
  visqol?: number | null;
}

/** The full-reference measure a score is judged against: its value, its line to 1–5, and a second measure to rank against. */
export interface Reference<W> {
  value(w: W): number | null;
  toMos(v: number): number;
  second?(w: W): number | null;
}

export const VMAF: Reference<ScoredWindow> = { value: (w) => w.vmaf, toMos: vmafToMos, second: (w) => w.ssim };
/** PESQ's wideband MOS-LQO is on listeners' 1–5 opinion scale already (scale.ts). */
export const PESQ: Reference<HeardWindow> = { value: (w) => w.pesq, toMos: (v) => v };
/**
 * ViSQOL's speech MOS-LQO, the listening reference the audio score is judged against: built for VoIP audio
 * a jitter buffer warps in time, which PESQ punishes and listeners barely hear. PESQ ranks beside it.
 */
export const VISQOL: Reference<HeardWindow> = { value: (w) => w.visqol ?? null, toMos: (v) => v, second: (w) => w.pesq };

/** The family of calls with nothing set on the link: every family's agreement includes them. */
export const CLEAN_FAMILY = 'clean';

/** How a score agrees with a full-reference measure over some windows. */
export interface Agreement {
  /** Windows with a score. */
  n: number;
  spearman: number | null;
  pearson: number | null;
  /** Mean absolute error against the measure put on 1–5 (`Reference.toMos`). */
  mae: number | null;
  /** How far each side moved: a family that moves neither has a correlation of noise. */
  scoreRange: [number, number] | null;
  referenceRange: [number, number] | null;
  /** Rank correlation with the second measure (SSIM for video; null where there is none). */
  secondSpearman: number | null;
  /** Spearman's 95 % bootstrap interval, the windows of one call drawn together (`AgreementOptions.call`); null where not asked or not enough calls. */
  spearmanInterval: [number, number] | null;
}

export interface AgreementOptions<W> {
  /** The call a window is of: asked for, Spearman's interval is drawn by resampling whole calls. */
  call?: (w: W) => string;
}

const range = (xs: readonly number[]): [number, number] | null => (xs.length ? [Math.min(...xs), Math.max(...xs)] : null);

/**
 * Rank and linear correlation of `score` (by default the window's own) with the reference measure, its
 * error on 1–5, and its rank correlation with the second measure: each over the scored windows that have
 * that measure (a run without VMAF, as the test suite's, is still judged against SSIM).
 */
export function agreement<W extends CalibratedWindow>(
  windows: readonly W[],
  reference: Reference<NoInfer<W>>,
  score: (w: W) => number | null = (w) => w.score,
  { call }: AgreementOptions<NoInfer<W>> = {},
): Agreement {
  const scored = windows
    .map((w) => ({ s: score(w), ref: reference.value(w), second: reference.second?.(w) ?? null, call: call?.(w) ?? null }))
    .filter((x) => x.s !== null);
  const withRef = scored.filter((x) => x.ref !== null);
  const withSecond = scored.filter((x) => x.second !== null);
  const [xs, refs] = [withRef.map((x) => x.s!), withRef.map((x) => x.ref!)];
  return {
    n: scored.length,
    spearman: spearman(xs, refs),
    pearson: pearson(xs, refs),
    mae: mean(withRef.map((x) => Math.abs(x.s! - reference.toMos(x.ref!)))),
    scoreRange: range(scored.map((x) => x.s!)),
    referenceRange: range(refs),
    secondSpearman: spearman(
      withSecond.map((x) => x.s!),
      withSecond.map((x) => x.second!),
    ),
    spearmanInterval: call ? bootstrapInterval(spearman, xs, refs, { groups: withRef.map((x) => x.call!) }) : null,
  };
}

/** One line of the agreement table: all windows, one family's (with the clean calls), or one content's. */
export interface AgreementRow {
  over: 'all' | 'family' | 'content';
  name: string;
  agreement: Agreement;
}

/** The table bench:quality prints and the dashboard draws: overall, per family, per content. */
export function agreementTable<W extends CalibratedWindow>(
  windows: readonly W[],
  reference: Reference<NoInfer<W>>,
  score?: (w: W) => number | null,
  options?: AgreementOptions<NoInfer<W>>,
): AgreementRow[] {
  const clean = windows.filter((w) => w.family === CLEAN_FAMILY);
  const families = [...new Set(windows.map((w) => w.family))].filter((f) => f !== CLEAN_FAMILY);
  const contents = [...new Set(windows.map((w) => w.content))];
  const of = (ws: readonly W[]) => agreement(ws, reference, score, options);
  return [
    { over: 'all', name: 'all', agreement: of(windows) },
    ...families.map((name) => ({ over: 'family' as const, name, agreement: of([...clean, ...windows.filter((w) => w.family === name)]) })),
    ...contents.map((name) => ({ over: 'content' as const, name, agreement: of(windows.filter((w) => w.content === name)) })),
  ];
}
