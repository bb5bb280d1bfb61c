import { THRESHOLDS } from './thresholds.js';
import type { Issue, Level } from './types.js';

export type Transition =
  { kind: 'raise'; start: number; level: 1 | 2 } | { kind: 'worse'; level: 2 } | { kind: 'clear'; end: number } | null;

/**
 * One subject's condition over its samples: raised after `raiseAfter` non-zero levels in a row (its
 * start is the first of them), cleared after `clearAfter` zeros in a row (its end is the first zero). A
 * null level (the sample cannot tell) changes nothing, so a gap in the data neither raises nor clears.
 * The counts are of one-second samples, as the SDK takes them: a sample that covers longer (a recording
 * polled every 2 or 10 s) counts for the seconds it covers, so 10 s of loss in one 10-s sample is told as
 * ten 1-s samples of it would be, and its issue starts when the interval began.
 */
export class Hysteresis {
  private open = false;
  private level: 1 | 2 = 1;
  private run: { start: number; n: number; max: 1 | 2 } | null = null;
  private quiet: { start: number; n: number } | null = null;

  constructor(
    private readonly raiseAfter: number = THRESHOLDS.raiseAfter,
    private readonly clearAfter: number = THRESHOLDS.clearAfter,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  /**
   * `raiseAfter`: for this sample, the run it takes to raise (a condition another source confirms).
   * `spanMs`: the time the sample covers, its stream's sampling interval.
   */
  next(ts: number, level: Level, raiseAfter: number = this.raiseAfter, spanMs: number | null = null): Transition {
    if (level === null) return null;
    const seconds = secondsOf(spanMs);
    if (!this.open) {
      if (level === 0) {
        this.run = null;
        return null;
      }
      this.run = this.run
        ? { ...this.run, n: this.run.n + seconds, max: level > this.run.max ? level : this.run.max }
        : { start: ts - (seconds - 1) * 1000, n: seconds, max: level };
      if (this.run.n < raiseAfter) return null;
      this.open = true;
      this.level = this.run.max;
      const start = this.run.start;
      this.run = null;
      return { kind: 'raise', start, level: this.level };
    }
    if (level > 0) {
      this.quiet = null;
      if (level === 2 && this.level === 1) {
        this.level = 2;
        return { kind: 'worse', level: 2 };
      }
      return null;
    }
    this.quiet = this.quiet ? { ...this.quiet, n: this.quiet.n + seconds } : { start: ts - (seconds - 1) * 1000, n: seconds };
    if (this.quiet.n < this.clearAfter) return null;
    const end = this.quiet.start;
    this.open = false;
    this.quiet = null;
    return { kind: 'clear', end };
  }
}

/**
 * The one-second samples a sample stands for: a live SDK's second (or less) counts once, a recording's
 * 2- or 10-s poll for its whole seconds.
 */
const secondsOf = (spanMs: number | null): number => (spanMs === null ? 1 : Math.max(1, Math.floor(spanMs / 1000 + 0.25)));

/** One detector's view of one subject: its hysteresis, and the issue it has open. */
export interface Slot {
  state: Hysteresis;
  open: Issue | null;
  /** The subject's issue of this kind that cleared last: raised again soon, it is reopened. */
  last: Issue | null;
}
