/**
 * Video quality, 1–5, from what a receiver's stats say, after the structure of ITU-T P.1203.1 mode 0
 * (coding quality from bits per pixel, scaled down for resolution and frame rate, then for stalling);
 * the constants are ours, documented with their reasons in docs/diagnosis.md and fitted in docs/scores.md.
 */

/** Bits a codec needs for the same quality, relative to VP8 and H.264. */
export const CODEC_EFFICIENCY: Record<string, number> = { vp8: 1, h264: 1, vp9: 0.7, av1: 0.6 };

/** The model's fitted constants (bench:quality refits them against VMAF: docs/scores.md). */
export interface VideoModel {
  /** Bits per pixel per frame at which coding quality reaches 1 − 1/e of its range. */
  bppScale: number;
  /** Loss at which the picture keeps 1/e of its quality. */
  lossScalePct: number;
}

/**
 * Fitted on the talking head's windows of the 2026-11-28 calibration (docs/scores.md), judged on the busy
 * picture's: bits per pixel at 0.07 (was 0.05), and loss costing a sixth of what it did (150 %, was 15 %)
 * — the loss the lab set was repaired by retransmission, and what it costs shows in the rate, the picture
 * size and the freezes the model already reads.
 */
export const VIDEO_MODEL: VideoModel = { bppScale: 0.07, lossScalePct: 150 };

export interface VideoConditions {
  kbps: number;
  width: number;
  height: number;
  fps: number;
  /** Share of the window the picture stood still (0–1). */
  frozen: number;
  /** Received packet loss, %: artifacts until the next key frame where retransmission does not repair it. */
  lossPct: number;
  codec: string | null;
  /** A shared screen: its frame rate follows its content, so neither a low rate nor a long-held frame lowers it. */
  screenshare?: boolean;
}

/**
 * A shared screen under this frame rate shows a still page: its frames carry only what changed (a caret),
 * so their few bits say nothing of the picture, which stays as sharp as the frames before (the lab's still
 * page: 2 fps at ~20 kbit/s of 720p).
 */
const SCREEN_STILL_FPS = 5;

/**
 * A page of text needs far fewer bits than a camera's picture for the same sharpness: the lab's scrolled
 * page at 720p15 sent 300–500 kbit/s (0.02–0.036 bits per pixel) with its encoder limited by nothing, a
 * camera's scale would have scored it 2.6. At this scale the encoder's own choice scores ~4.4.
 */
const SCREEN_BPP_SCALE = 0.01;

/** What a video's score is made of, each 1 at its best: the picture's coding for its bits, its size, its frame rate, loss, and the time it moved. */
interface VideoParts {
  bitRate: number;
  resolution: number;
  frameRate: number;
  loss: number;
  freezes: number;
}

function videoParts({ kbps, width, height, fps, frozen, lossPct, codec, screenshare }: VideoConditions, model: VideoModel): VideoParts {
  const efficiency = CODEC_EFFICIENCY[(codec ?? 'vp8').toLowerCase()] ?? 1;
  const bpp = (kbps * 1000) / (width * height * fps) / efficiency;
  return {
    bitRate: screenshare && fps < SCREEN_STILL_FPS ? 1 : 1 - Math.exp(-bpp / (screenshare ? SCREEN_BPP_SCALE : model.bppScale)),
    resolution: Math.max(0.4, Math.min(1, 0.6 + (0.4 * Math.log2(height / 180)) / Math.log2(1080 / 180))),
    frameRate: screenshare ? 1 : Math.min(1, Math.log(1 + fps) / Math.log(31)),
    loss: Math.exp(-Math.max(0, lossPct) / model.lossScalePct),
    freezes: screenshare ? 1 : 1 - Math.max(0, Math.min(1, frozen)),
  };
}

const fromParts = (p: VideoParts) => 1 + 4 * p.bitRate * p.resolution * p.frameRate * p.loss * p.freezes;

const playable = ({ fps, width, height }: VideoConditions) => fps > 0 && width > 0 && height > 0;

export function videoMos(c: VideoConditions, model = VIDEO_MODEL): number {
  return playable(c) ? fromParts(videoParts(c, model)) : 1;
}

/**
 * What lowers a video's score: for each part, the points it would gain were that part at its best and
 * the others as they are. A clean call's score is lowered by its source (frame rate, picture size); a
 * troubled one's by loss, freezes or too few bits.
 */
export function videoShortfall(c: VideoConditions, model = VIDEO_MODEL): Record<keyof VideoParts, number> | null {
  if (!playable(c)) return null;
  const parts = videoParts(c, model);
  const mos = fromParts(parts);
  const gain = (part: keyof VideoParts) => fromParts({ ...parts, [part]: 1 }) - mos;
  return {
    bitRate: gain('bitRate'),
    resolution: gain('resolution'),
    frameRate: gain('frameRate'),
    loss: gain('loss'),
    freezes: gain('freezes'),
  };
}
