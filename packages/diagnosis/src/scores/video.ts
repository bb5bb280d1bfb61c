/**
 * Video quality, 1–5, from what a receiver's stats say, after the structure of ITU-T P.1203.1 mode 0
 * (coding quality from bits per pixel, scaled down for resolution and frame rate, then for stalling);
 * the constants are ours, documented with their reasons in docs/diagnosis.md.
 */

/** Bits a codec needs for the same quality, relative to VP8 and H.264. */
export const CODEC_EFFICIENCY: Record<string, number> = { vp8: 1, h264: 1, vp9: 0.7, av1: 0.6 };

/** Bits per pixel per frame at which coding quality reaches 1 − 1/e of its range. */
const BPP_SCALE = 0.05;

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
}

/** Loss at which the picture keeps 1/e of its quality. */
const LOSS_SCALE_PCT = 15;

export function videoMos({ kbps, width, height, fps, frozen, lossPct, codec }: VideoConditions): number {
  if (fps <= 0 || width <= 0 || height <= 0) return 1;
  const efficiency = CODEC_EFFICIENCY[(codec ?? 'vp8').toLowerCase()] ?? 1;
  const bpp = (kbps * 1000) / (width * height * fps) / efficiency;
  const coding = 1 + 4 * (1 - Math.exp(-bpp / BPP_SCALE));
  const resolution = Math.max(0.4, Math.min(1, 0.6 + (0.4 * Math.log2(height / 180)) / Math.log2(1080 / 180)));
  const frameRate = Math.min(1, Math.log(1 + fps) / Math.log(31));
  const loss = Math.exp(-Math.max(0, lossPct) / LOSS_SCALE_PCT);
  return 1 + (coding - 1) * resolution * frameRate * loss * (1 - Math.max(0, Math.min(1, frozen)));
}
