import { mean, pearson, spearman } from '@rtcscope/metrics';
import { vmafToMos } from './scale.js';

/** One window of a calibration call: our score of the received video, and what was measured of it. */
export interface ScoredWindow {
  content: string;
  /** The impairment family of the window's call; `clean` calls are counted with every family. */
  family: string;
  score: number | null;
  vmaf: number | null;
  ssim: number | null;
}

/** The family of calls with nothing set on the link: every family's agreement includes them. */
export const CLEAN_FAMILY = 'clean';

/** How a score agrees with VMAF (and SSIM) over some windows. */
export interface Agreement {
  /** Windows with a score. */
  n: number;
  spearman: number | null;
  pearson: number | null;
  /** Mean absolute error against VMAF mapped to 1–5 (`vmafToMos`). */
  mae: number | null;
  /** How far each side moved: a family that moves neither has a correlation of noise. */
  scoreRange: [number, number] | null;
  vmafRange: [number, number] | null;
  ssimSpearman: number | null;
}

const range = (xs: readonly number[]): [number, number] | null => (xs.length ? [Math.min(...xs), Math.max(...xs)] : null);

/**
 * Rank and linear correlation of `score` (by default the window's own) with VMAF, its error on 1–5, and
 * its rank correlation with SSIM: each over the scored windows that have that measure (a run without
 * VMAF, as the test suite's, is still judged against SSIM).
 */
export function agreement<W extends ScoredWindow>(windows: readonly W[], score: (w: W) => number | null = (w) => w.score): Agreement {
  const scored = windows.map((w) => ({ s: score(w), vmaf: w.vmaf, ssim: w.ssim })).filter((x) => x.s !== null);
  const withVmaf = scored.filter((x) => x.vmaf !== null);
  const withSsim = scored.filter((x) => x.ssim !== null);
  const [xs, vmafs] = [withVmaf.map((x) => x.s!), withVmaf.map((x) => x.vmaf!)];
  return {
    n: scored.length,
    spearman: spearman(xs, vmafs),
    pearson: pearson(xs, vmafs),
    mae: mean(withVmaf.map((x) => Math.abs(x.s! - vmafToMos(x.vmaf!)))),
    scoreRange: range(scored.map((x) => x.s!)),
    vmafRange: range(vmafs),
    ssimSpearman: spearman(
      withSsim.map((x) => x.s!),
      withSsim.map((x) => x.ssim!),
    ),
  };
}

/** One line of the agreement table: all windows, one family's (with the clean calls), or one content's. */
export interface AgreementRow {
  over: 'all' | 'family' | 'content';
  name: string;
  agreement: Agreement;
}

/** The table bench:quality prints and the dashboard draws: overall, per family, per content. */
export function agreementTable<W extends ScoredWindow>(windows: readonly W[], score?: (w: W) => number | null): AgreementRow[] {
  const clean = windows.filter((w) => w.family === CLEAN_FAMILY);
  const families = [...new Set(windows.map((w) => w.family))].filter((f) => f !== CLEAN_FAMILY);
  const contents = [...new Set(windows.map((w) => w.content))];
  return [
    { over: 'all', name: 'all', agreement: agreement(windows, score) },
    ...families.map((name) => ({
      over: 'family' as const,
      name,
      agreement: agreement([...clean, ...windows.filter((w) => w.family === name)], score),
    })),
    ...contents.map((name) => ({
      over: 'content' as const,
      name,
      agreement: agreement(
        windows.filter((w) => w.content === name),
        score,
      ),
    })),
  ];
}
