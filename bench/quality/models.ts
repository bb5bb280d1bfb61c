// The scores a calibration judges — the shipped models and their refits — and how a refit is judged on
// windows it never saw: fitted on every fold but one (a content, a run), scored on that one.
import { audioMos, CODECS, VIDEO_MODEL, type VideoConditions, type VideoModel, videoMos, videoShortfall } from '@rtcscope/diagnosis';
import { agreement, type CalibratedWindow, PESQ, type Reference, VISQOL, VMAF } from '@rtcscope/reference-quality';
import type { HeardRow, Row } from './calls.js';

export const fmt = (v: number | null | undefined, digits = 2): string => (v === null || v === undefined ? '–' : v.toFixed(digits));

/** A score with constants to fit: how it is fitted on windows, and how it scores one under a fit. */
export interface Candidate<R, P> {
  name: string;
  fit(rows: readonly R[]): P;
  score(r: R, p: P): number | null;
  said(p: P): string;
}

/**
 * Each window's score under the candidate fitted on every other fold's windows (leave one fold out): no
 * window is scored by constants fitted on it. `fits` says what each fold's fit came to.
 */
export function heldOut<R, P>(
  rows: readonly R[],
  fold: (r: R) => string,
  c: Candidate<R, P>,
): { score: (r: R) => number | null; fits: { fold: string; params: P }[] } {
  const folds = [...new Set(rows.map(fold))];
  const fits = folds.map((f) => ({ fold: f, params: c.fit(rows.filter((r) => fold(r) !== f)) }));
  const byFold = new Map(fits.map((x) => [x.fold, x.params]));
  return { score: (r) => c.score(r, byFold.get(fold(r))!), fits };
}

const grid = (lo: number, hi: number, n: number) => Array.from({ length: n }, (_, k) => lo * (hi / lo) ** (k / (n - 1)));

/** Of `candidates`, the one whose score ranks `rs` best against the reference measure (ties: the lower error). */
function best<T, W extends CalibratedWindow>(
  rs: readonly W[],
  reference: Reference<NoInfer<W>>,
  candidates: readonly T[],
  score: (c: T) => (r: W) => number | null,
): T {
  let top: { c: T; rho: number; mae: number } = { c: candidates[0] as T, rho: -Infinity, mae: Infinity };
  for (const c of candidates) {
    const a = agreement(rs, reference, score(c));
    const [rho, mae] = [a.spearman ?? -Infinity, a.mae ?? Infinity];
    if (rho > top.rho + 1e-9 || (Math.abs(rho - top.rho) <= 1e-9 && mae < top.mae)) top = { c, rho, mae };
  }
  return top.c;
}

/** A window's conditions as the score reads them, from its inputs; null where it has no picture. */
function conditions(r: Row): VideoConditions | null {
  const { kbps, fps, width, height, lossPct, freezeMs } = r.inputs;
  if (kbps === null || fps === null || height === null) return null;
  return {
    kbps,
    fps,
    width: width ?? (height * 16) / 9,
    height,
    lossPct: lossPct ?? 0,
    frozen: Math.min(1, (freezeMs ?? 0) / 1000),
    codec: (r.codec ?? 'VP8').toLowerCase(),
  };
}

/** A window's video score recomputed from its inputs under `model` (the stored score under the run's model, to a rounding). */
export function rescored(r: Row, model: VideoModel): number | null {
  const c = conditions(r);
  return c && videoMos(c, model);
}

export const shipped = (r: Row): number => rescored(r, VIDEO_MODEL) ?? r.score;

export const modelSaid = (m: VideoModel): string => `bppScale ${fmt(m.bppScale, 4)}, lossScalePct ${fmt(m.lossScalePct, 1)}`;

/** The shipped model's two constants refitted: bits per pixel's scale 0.005–0.5, loss's 2–1000 %. */
export const BITS_REFIT: Candidate<Row, VideoModel> = {
  name: 'bits per pixel, refitted',
  fit: (rs) =>
    best(
      rs,
      VMAF,
      grid(0.005, 0.5, 41).flatMap((bppScale) => grid(2, 1000, 37).map((lossScalePct) => ({ bppScale, lossScalePct }))),
      (model) => (r) => rescored(r, model),
    ),
  score: rescored,
  said: modelSaid,
};

/** The decoder's quantizer's logistic: half its range at `mid`, over `width`. */
interface QpFit {
  model: VideoModel;
  mid: number;
  width: number;
}
/** VP8's quantizer index runs to 127, VP9's to 255, H.264's to 51. */
const QP_RANGE: Record<string, number> = { VP8: 127, VP9: 255, H264: 51 };

/**
 * The score were its coding quality read from the decoder's quantizer instead of bits per pixel (as
 * P.1203.1's mode 1 does): a logistic of QP over its codec's range, 1 at QP 0, half at `mid`; the model's
 * other parts as they are.
 */
function qpScored(r: Row, q: QpFit): number | null {
  const c = conditions(r);
  const qp = r.inputs.qp;
  if (!c || qp === null || qp === undefined) return null;
  const [mos, bits] = [videoMos(c, q.model), videoShortfall(c, q.model)!.bitRate];
  const logistic = (share: number) => 1 / (1 + Math.exp((share - q.mid) / q.width));
  return 1 + (mos - 1 + bits) * (logistic(Math.min(1, qp / (QP_RANGE[r.codec] ?? 127))) / logistic(0));
}

/** The quantizer's logistic fitted under the bits refit of the same windows: its midpoint 0.2–0.95 of the range, its width 0.02–0.3. */
export const QP_REFIT: Candidate<Row, QpFit> = {
  name: "the decoder's quantizer instead of bits per pixel",
  fit: (rs) => {
    const model = BITS_REFIT.fit(rs);
    return best(
      rs,
      VMAF,
      Array.from({ length: 31 }, (_, k) => 0.2 + k * 0.025).flatMap((mid) => grid(0.02, 0.3, 15).map((width) => ({ model, mid, width }))),
      (q) => (r) => qpScored(r, q),
    );
  },
  score: qpScored,
  said: (q) => `${modelSaid(q.model)}; QP half at ${fmt(q.mid, 3)} of its range, width ${fmt(q.width, 3)}`,
};

/**
 * How an audio window is scored: the loss the E-model reads — the concealed share where reported, as the
 * score has it (`concealedWeight` 1), the packets lost (0), or between — and the codec's robustness to it
 * (Bpl); with or without the delay part, which a listening test cannot hear.
 */
export interface AudioFit {
  concealedWeight: number;
  bpl: number;
}
export const SHIPPED_AUDIO: AudioFit = { concealedWeight: 1, bpl: CODECS.opus!.bpl };

export function heardScored(r: HeardRow, fit: AudioFit, withDelay: boolean): number | null {
  const { missedPct, missedAsLostPct, rttMs, jitterBufferMs } = r.inputs;
  if (missedPct === null || missedAsLostPct === null) return null;
  const effective = fit.concealedWeight * missedPct + (1 - fit.concealedWeight) * missedAsLostPct;
  const delay = withDelay ? { rttMs: rttMs ?? 0, jitterBufferMs: jitterBufferMs ?? 0 } : { rttMs: 0, jitterBufferMs: 0 };
  return audioMos({ ...delay, lossPct: effective, codec: 'opus' }, { ie: 0, bpl: fit.bpl });
}

export const fitSaid = (f: AudioFit): string =>
  `loss read ${fmt(f.concealedWeight * 100, 0)} % as concealed, ${fmt((1 - f.concealedWeight) * 100, 0)} % as packets lost; Bpl ${fmt(f.bpl, 1)}`;

/** The listening score's loss term fitted against a listening reference, on a grid: concealed's weight 0–1, Bpl 2–100. */
export const audioRefit = (reference: typeof PESQ | typeof VISQOL): Candidate<HeardRow, AudioFit> => ({
  name: 'the listening part, its loss refitted',
  fit: (rs) =>
    best(
      rs,
      reference,
      [0, 0.25, 0.5, 0.75, 1].flatMap((concealedWeight) => grid(2, 100, 40).map((bpl) => ({ concealedWeight, bpl }))),
      (fit) => (r) => heardScored(r, fit, false),
    ),
  score: (r, fit) => heardScored(r, fit, false),
  said: fitSaid,
});

/**
 * The quantizer's step, log2, from a codec's QP index (approximations of the codecs' tables: VP8's AC step
 * runs 4–157 over 0–127, VP9's 4–1828 over 0–255, H.264's doubles every 6): a step twice as coarse costs
 * about half the bits, whatever the codec.
 */
export function log2Step(qp: number, codec: string): number {
  if (codec === 'H264') return (qp - 4) / 6;
  return codec === 'VP9' ? 2 + (8.8 * qp) / 255 : 2 + (5.3 * qp) / 127;
}

/** A score that knows the content: how coarse the encoder coded, against how coarse that content bears; the picture's size against the camera's. */
export interface ContentFit {
  /** The step (log2) a content of cost 0 bears at half its coding quality, and how much more each unit of cost lets it bear. */
  bears: number;
  perCost: number;
  /** The width of the fall, in log2 steps. */
  width: number;
  /** How much a picture received smaller than captured costs: (received / captured height) to this power. */
  downscale: number;
}

/**
 * The content's coding cost: log2 of the bits a pixel took times the step they were coded at — the bits it
 * would need at a step of 1 (a busy picture costs more than a talking head at any step). From the sender's
 * stats where the window has them (Firefox reports no QP of what it receives), else the receiver's.
 */
function coding(r: Row): { step: number; cost: number } | null {
  const s = r.sender;
  const qp = s?.qp ?? r.inputs.qp;
  const [kbps, fps, height] = [s?.kbps ?? r.inputs.kbps, s?.fps ?? r.inputs.fps, s?.height ?? r.inputs.height];
  if (qp === null || qp === undefined || !kbps || !fps || !height) return null;
  const width = s?.width ?? r.inputs.width ?? (height * 16) / 9;
  const step = log2Step(qp, r.codec ?? 'VP8');
  return { step, cost: Math.log2((kbps * 1000) / (width * height * fps)) + step };
}

function contentScored(r: Row, f: ContentFit): number | null {
  const c = conditions(r);
  const k = coding(r);
  if (!c || !k) return null;
  const quality = 1 / (1 + 2 ** ((k.step - (f.bears + f.perCost * k.cost)) / f.width));
  const shrunk = Math.min(1, c.height / (r.height ?? 360)) ** f.downscale;
  const frameRate = Math.min(1, Math.log(1 + c.fps) / Math.log(31));
  return 1 + 4 * quality * shrunk * frameRate * (1 - c.frozen) * Math.exp(-c.lossPct / VIDEO_MODEL.lossScalePct);
}

export const contentSaid = (f: ContentFit): string =>
  `bears step 2^${fmt(f.bears, 2)} + ${fmt(f.perCost, 2)}·cost, width ${fmt(f.width, 2)}, (received/captured)^${fmt(f.downscale, 2)}`;

/** The content-aware score fitted on a grid of its four constants. */
export const CONTENT_FIT: Candidate<Row, ContentFit> = {
  name: 'knowing the content (the quantizer against what the content bears, the size against the camera)',
  fit: (rs) =>
    best(
      rs,
      VMAF,
      Array.from({ length: 13 }, (_, k) => 2 + k * 0.5).flatMap((bears) =>
        [0, 0.2, 0.4, 0.6, 0.8, 1].flatMap((perCost) =>
          [0.25, 0.5, 0.75, 1, 1.5, 2].flatMap((width) =>
            [0, 0.5, 1, 1.5, 2, 3].map((downscale) => ({ bears, perCost, width, downscale })),
          ),
        ),
      ),
      (f) => (r) => contentScored(r, f),
    ),
  score: contentScored,
  said: contentSaid,
};
