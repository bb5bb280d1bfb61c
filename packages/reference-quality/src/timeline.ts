/**
 * What a viewer saw against what was sent, in time. The sender's page logs each frame of its camera as
 * it shows it (the time, and the number its code reads), the receiver's page each frame it presents, and
 * at regular ticks the frame on its screen then. From these: each received frame's latency, the frame a
 * viewer should see at each tick (one sent as long ago as the least latency lately: the stream's own
 * steady delay, which nobody sees), how far behind the frame on screen was (a freeze holds one while
 * time runs), and the frames sent that never showed (skipped).
 */

/** A frame shown at `t` (epoch ms) whose code read `n` (null: it did not read). */
export interface FrameSeen {
  t: number;
  n: number | null;
}

export interface TimelineOptions {
  /** Frames in the sent clip, which the camera repeats: its numbers run 0 to this − 1. */
  period: number;
  /** The clip's frames per second, for telling its repeats apart. */
  fps: number;
  windowMs: number;
}

/** A frame on screen this far behind the one due is frozen (or late): shorter holds pass unseen as a player's own jitter. */
export const BEHIND_MS = 200;
/** How much later than a receiver the sender's own page may show a frame (its compositor the slower of the two). */
const SENDER_SLACK_MS = 1000;
/** The stream's steady delay is the least latency of the frames presented over this span before a tick. */
const BASELINE_SPAN_MS = 1000;

export interface TickAlignment {
  t: number;
  /** The start of the window the tick is in. */
  window: number;
  /** The clip frame the viewer should see, and the one on screen (their clip indices); null where unknown. */
  due: number | null;
  shown: number | null;
  /** How far behind the frame due the one on screen was sent, ms (0 when on time or ahead). */
  behindMs: number | null;
}

export interface WindowAlignment {
  ts: number;
  /** Frames presented, and frames sent in between them that never were. */
  presented: number;
  skipped: number;
  /** Share of ticks whose frame was more than BEHIND_MS behind (0–1). */
  frozenShare: number;
  /** The least latency of a frame presented in the window, ms. */
  latencyMs: number | null;
}

const clipIndex = (u: number, period: number) => ((u % period) + period) % period;

/** When each sent frame (by its place in the whole sending, counting the clip's repeats) was shown at the sender. */
class SentClock {
  private readonly u: number[] = [];
  private readonly t: number[] = [];

  constructor(
    sent: readonly FrameSeen[],
    private readonly o: TimelineOptions,
  ) {
    for (const f of sent) {
      if (f.n === null) continue;
      const last = this.u.length - 1;
      const u = last < 0 ? f.n : this.unwrap(f.n, this.u[last]! + ((f.t - this.t[last]!) * o.fps) / 1000);
      if (last >= 0 && u <= this.u[last]!) continue;
      this.u.push(u);
      this.t.push(f.t);
    }
    if (this.u.length < 2) throw new Error(`the sender's log has ${this.u.length} readable frame(s): its camera's code did not read`);
  }

  /** The place of clip frame `n` nearest `expected`. */
  private unwrap(n: number, expected: number): number {
    return n + Math.round((expected - n) / this.o.period) * this.o.period;
  }

  /** When place `u` was sent (between two logged frames: in proportion; outside the log: at the clip's rate). */
  timeOf(u: number): number {
    const { u: us, t: ts } = this;
    if (u <= us[0]!) return ts[0]! - ((us[0]! - u) * 1000) / this.o.fps;
    const last = us.length - 1;
    if (u >= us[last]!) return ts[last]! + ((u - us[last]!) * 1000) / this.o.fps;
    let [lo, hi] = [0, last];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (us[mid]! <= u) lo = mid;
      else hi = mid;
    }
    return ts[lo]! + ((ts[hi]! - ts[lo]!) * (u - us[lo]!)) / (us[hi]! - us[lo]!);
  }

  /** The latest place sent at or before `t`. */
  placeAt(t: number): number {
    const { u: us, t: ts } = this;
    if (t < ts[0]!) return us[0]! - Math.ceil(((ts[0]! - t) * this.o.fps) / 1000);
    let [lo, hi] = [0, us.length];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (ts[mid]! <= t) lo = mid;
      else hi = mid;
    }
    if (lo === us.length - 1) return us[lo]! + Math.floor(((t - ts[lo]!) * this.o.fps) / 1000);
    // Between two logged frames: the sender's log may have missed some it sent.
    let u = us[lo]!;
    while (u + 1 < us[lo + 1]! && this.timeOf(u + 1) <= t) u++;
    return u;
  }

  /**
   * The latest place of clip frame `n` sent by `t` (a frame cannot show before it is sent), give or take
   * SENDER_SLACK_MS: the sender's page may show its camera's frame after the far end presents it.
   */
  latestOf(n: number, t: number): number {
    const u = this.placeAt(t + SENDER_SLACK_MS);
    return u - clipIndex(u - n, this.o.period);
  }
}

/**
 * Aligns a received stream with the sent one. `ticks` are what was on the viewer's screen at regular
 * times: the number read from the frame shown then.
 */
export function alignStream(
  sent: readonly FrameSeen[],
  received: readonly FrameSeen[],
  ticks: readonly FrameSeen[],
  o: TimelineOptions,
): { ticks: TickAlignment[]; windows: WindowAlignment[] } {
  const clock = new SentClock(sent, o);
  const windowOf = (t: number) => Math.floor(t / o.windowMs) * o.windowMs;
  const presented = received
    .filter((f): f is { t: number; n: number } => f.n !== null)
    .map((f) => {
      const u = clock.latestOf(f.n, f.t);
      return { t: f.t, u, latency: f.t - clock.timeOf(u) };
    });
  const windows = new Map<number, WindowAlignment & { ticks: number; behind: number }>();
  const windowAt = (ts: number) => {
    const w = windows.get(ts) ?? { ts, presented: 0, skipped: 0, frozenShare: 0, latencyMs: null, ticks: 0, behind: 0 };
    windows.set(ts, w);
    return w;
  };
  let lastU: number | null = null;
  for (const f of presented) {
    const w = windowAt(windowOf(f.t));
    w.presented++;
    w.latencyMs = w.latencyMs === null ? f.latency : Math.min(w.latencyMs, f.latency);
    if (lastU !== null && f.u > lastU + 1) w.skipped += f.u - lastU - 1;
    if (lastU === null || f.u > lastU) lastU = f.u;
  }
  const aligned: TickAlignment[] = [];
  let first = 0;
  let baseline: number | null = null;
  for (const tick of ticks) {
    while (first < presented.length && presented[first]!.t < tick.t - BASELINE_SPAN_MS) first++;
    for (let k = first; k < presented.length && presented[k]!.t <= tick.t; k++)
      if (k === first || presented[k]!.latency < baseline!) baseline = presented[k]!.latency;
    const w = windowAt(windowOf(tick.t));
    if (baseline === null || tick.n === null) {
      aligned.push({ t: tick.t, window: w.ts, due: null, shown: null, behindMs: null });
      continue;
    }
    const due = clock.placeAt(tick.t - baseline);
    const shown = clock.latestOf(tick.n, tick.t);
    const behindMs = Math.max(0, clock.timeOf(due) - clock.timeOf(shown));
    w.ticks++;
    if (behindMs > BEHIND_MS) w.behind++;
    aligned.push({ t: tick.t, window: w.ts, due: clipIndex(due, o.period), shown: clipIndex(shown, o.period), behindMs });
  }
  return {
    ticks: aligned,
    windows: [...windows.values()]
      .sort((a, b) => a.ts - b.ts)
      .map(({ ticks, behind, ...w }) => ({ ...w, frozenShare: ticks ? behind / ticks : 0 })),
  };
}
