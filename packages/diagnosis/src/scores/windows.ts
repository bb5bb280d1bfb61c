import { audioMos } from './emodel.js';
import { videoMos } from './video.js';
import { THRESHOLDS } from '../thresholds.js';
import type { StreamMeta } from '../types.js';
import type { StreamView } from '../view.js';

/** Scores are per window of this many ms: the recent conditions, not the call so far. */
export const SCORE_WINDOW_MS = 5000;

/** One received stream's score over one window (ts: the window's start). */
export interface ScorePoint {
  ts: number;
  streamId: number;
  participant: string;
  kind: 'audio' | 'video';
  mos: number;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** A received stream's samples of the current window, scored when the next window begins. */
export class WindowScorer {
  private window: number | null = null;
  private rows: { kbps: number | null; fps: number | null; width: number | null; height: number | null; lossPct: number | null; jitterMs: number | null; rttMs: number | null }[] = [];

  constructor(private readonly meta: StreamMeta) {}

  /** Adds the stream's newest sample (and the RTT of its connection then); returns the previous window's score when this one begins a new window. */
  add(stream: StreamView, rttMs: number | null): ScorePoint | null {
    const sample = stream.latest!;
    const window = Math.floor(sample.ts / SCORE_WINDOW_MS);
    const done = this.window !== null && window > this.window ? this.finish() : null;
    this.window = window;
    this.rows.push({
      kbps: stream.value('kbps'),
      fps: stream.value('fps'),
      width: stream.value('width'),
      height: stream.value('height'),
      lossPct: stream.value('lossPct'),
      jitterMs: stream.value('jitterMs'),
      rttMs,
    });
    return done;
  }

  /** The current window's score, ending it. */
  finish(): ScorePoint | null {
    const rows = this.rows;
    const window = this.window;
    this.rows = [];
    if (window === null || !rows.length) return null;
    const pick = (f: keyof (typeof rows)[number]) => rows.map((r) => r[f]).filter((v): v is number => v !== null);
    let mos: number | null;
    if (this.meta.kind === 'audio') {
      const loss = mean(pick('lossPct'));
      mos = loss === null ? null : audioMos({ rttMs: mean(pick('rttMs')) ?? 0, jitterBufferMs: 2 * (mean(pick('jitterMs')) ?? 0), lossPct: loss, codec: this.meta.codec });
    } else {
      const [kbps, fps, width, height] = [mean(pick('kbps')), mean(pick('fps')), mean(pick('width')), mean(pick('height'))];
      const frozen = pick('fps').filter((f) => f < THRESHOLDS.freeze.fps).length / rows.length;
      // A browser that reports only the height: a 16:9 picture.
      mos = kbps === null || fps === null || height === null ? null : videoMos({ kbps, fps, width: width ?? (height * 16) / 9, height, frozen, lossPct: mean(pick('lossPct')) ?? 0, codec: this.meta.codec });
    }
    return mos === null ? null : { ts: window * SCORE_WINDOW_MS, streamId: this.meta.id, participant: this.meta.participant, kind: this.meta.kind, mos };
  }
}

/**
 * A participant's score per window: the worse of what it hears and what it sees (the lowest score of
 * its received streams); the call's: the mean over its participants, and its worst participant's.
 */
export function participantScores(points: readonly ScorePoint[]): Map<string, { ts: number; mos: number }[]> {
  const by = new Map<string, Map<number, number>>();
  for (const p of points) {
    const windows = by.get(p.participant) ?? new Map<number, number>();
    windows.set(p.ts, Math.min(windows.get(p.ts) ?? Infinity, p.mos));
    by.set(p.participant, windows);
  }
  return new Map([...by].map(([participant, w]) => [participant, [...w].sort(([a], [b]) => a - b).map(([ts, mos]) => ({ ts, mos }))]));
}

export function callScores(points: readonly ScorePoint[]): { ts: number; mean: number; worst: number }[] {
  const perWindow = new Map<number, number[]>();
  for (const series of participantScores(points).values()) for (const { ts, mos } of series) perWindow.set(ts, [...(perWindow.get(ts) ?? []), mos]);
  return [...perWindow].sort(([a], [b]) => a - b).map(([ts, xs]) => ({ ts, mean: mean(xs)!, worst: Math.min(...xs) }));
}

/** A series' summary: its mean over the windows, and its worst window. */
export function scoreSummary(series: readonly { mos: number }[]): { mean: number | null; worst: number | null } {
  return { mean: mean(series.map((s) => s.mos)), worst: series.length ? Math.min(...series.map((s) => s.mos)) : null };
}
