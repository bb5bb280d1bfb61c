export type QualityHint = 'good' | 'fair' | 'poor' | 'unknown';

export interface QualityInputs {
  lossPct: number | null;
  rttMs: number | null;
  fps: number | null;
}

/**
 * A coarse call-quality hint for the calls list. Thresholds follow common practice for interactive
 * video: loss above 2 % or RTT above 300 ms is noticeable, above 10 % or 600 ms is poor, and video
 * under 10 fps reads as stutter.
 */
export function qualityHint({ lossPct, rttMs, fps }: QualityInputs): QualityHint {
  if (lossPct === null && rttMs === null && fps === null) return 'unknown';
  if ((lossPct ?? 0) > 10 || (rttMs ?? 0) > 600 || (fps !== null && fps < 10)) return 'poor';
  if ((lossPct ?? 0) > 2 || (rttMs ?? 0) > 300 || (fps !== null && fps < 20)) return 'fair';
  return 'good';
}

/** What the hint is based on, for the people who read it. */
export const QUALITY_RULE =
  'From the call means: poor if loss > 10 %, RTT > 600 ms or FPS < 10; fair if loss > 2 %, RTT > 300 ms or FPS < 20; good otherwise. A coarse hint, not a score.';
