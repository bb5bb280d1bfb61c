import { mean } from '@rtcscope/metrics';
import type { Lowers } from '@rtcscope/protocol';
import { audioMos, audioShortfall, mouthToEarMs } from './emodel.js';
import { videoMos, videoShortfall } from './video.js';
import { THRESHOLDS } from '../thresholds.js';
import type { StreamMeta } from '../types.js';
import type { StreamView } from '../view.js';

/** Scores are per window of this many ms: the recent conditions, not the call so far. */
export const SCORE_WINDOW_MS = 5000;

/** One received stream's score over one window (ts: the window's start), and the points each factor takes from it. */
export interface ScorePoint {
  ts: number;
  streamId: number;
  participant: string;
  kind: 'audio' | 'video';
  mos: number;
  lowers: Lowers;
  /**
   * How much of what its participant experienced in the window it was (`streamWeight`): a speaker's audio
   * more than a silent one's, the large picture more than a thumbnail.
   */
  weight: number;
  /** Audio: the mouth-to-ear delay the score read over the window, ms (`mouthToEarMs`); absent for video. */
  delayMs?: number;
}

/**
 * A stream's weight in its participant's score: audio by its mean rate (a speaker's ~30–40 kbit/s, a
 * silent one in DTX a few), video by its picture's size (the layer an SFU forwards follows the size the
 * app renders it at; a frozen picture keeps its size, where its rate would fall with it). At least 1.
 */
export function streamWeight(kind: 'audio' | 'video', m: { kbps: number | null; width: number | null; height: number | null }): number {
  if (kind === 'audio') return Math.max(1, m.kbps ?? 1);
  return m.height === null ? 1 : Math.max(1, ((m.width ?? (m.height * 16) / 9) * m.height) / 1000);
}

/** A second is the one a sender stopped after when the first stopped second comes this soon after it, ms (1-s samples, a little late). */
const STOPPED_WITHIN_MS = 1500;

const WINDOW_FIELDS = ['kbps', 'fps', 'width', 'height', 'lossPct', 'jitterMs', 'jitterBufferMs', 'concealedPct'] as const;
type WindowField = (typeof WINDOW_FIELDS)[number] | 'rttMs' | 'missedPct';

/**
 * A received stream's current window, scored when the next window begins. It keeps running sums, not
 * the samples: every received stream of every call passes through here each second.
 */
export class WindowScorer {
  private window: number | null = null;
  private samples = 0;
  private frozen = 0;
  /** The newest second added to this window: its time (null: none, or taken back) and its frozen share; each sum keeps what it added as `last` (NaN: nothing). */
  private lastTs: number | null = null;
  private lastFrozen = 0;
  private readonly sums = new Map<WindowField, { sum: number; n: number; last: number }>(
    [...WINDOW_FIELDS, 'rttMs' as const, 'missedPct' as const].map((f) => [f, { sum: 0, n: 0, last: Number.NaN }]),
  );

  constructor(private meta: StreamMeta) {}

  /** Adds the stream's newest sample (and the RTT of its connection then); returns the previous window's score when this one begins a new window. */
  add(stream: StreamView, rttMs: number | null): ScorePoint | null {
    const sample = stream.latest!;
    this.meta = stream.meta;
    const window = Math.floor(sample.ts / SCORE_WINDOW_MS);
    const done = this.window !== null && window > this.window ? this.finish() : null;
    this.window = window;
    this.samples++;
    this.lastTs = sample.ts;
    this.lastFrozen = 0;
    for (const acc of this.sums.values()) acc.last = Number.NaN;
    for (const f of WINDOW_FIELDS) this.include(f, stream.value(f));
    this.include('rttMs', rttMs);
    if (this.meta.kind === 'audio')
      this.include(
        'missedPct',
        missedPct({ packets: stream.value('packets'), concealedPct: stream.value('concealedPct'), lossPct: stream.value('lossPct') }),
      );
    // The browser's frozen time where it reports it, as a share of the time the sample covers; else a sample under 2 fps counts as frozen.
    const freezeMs = stream.value('freezeMs');
    const fps = stream.value('fps');
    if (freezeMs !== null) this.lastFrozen = Math.min(1, freezeMs / (stream.interval ?? 1000));
    else if (fps !== null && fps < THRESHOLDS.freeze.fps) this.lastFrozen = 1;
    this.frozen += this.lastFrozen;
    return done;
  }

  /**
   * Takes back the newest second when its sender stopped sending by choice in the next, at `ts`: the
   * media stopped partway through it, which its receiver reads as concealment after the last packet or a
   * short frame rate (lab: a microphone taken off its sender read 16 % concealed in that second, and its
   * window, the only second of it scored, 2.83 against 4.38).
   */
  dropLast(ts: number): void {
    const lastTs = this.lastTs;
    this.lastTs = null;
    if (lastTs === null || ts - lastTs > STOPPED_WITHIN_MS) return;
    for (const acc of this.sums.values()) {
      if (Number.isNaN(acc.last)) continue;
      acc.sum -= acc.last;
      acc.n--;
    }
    this.frozen -= this.lastFrozen;
    this.samples--;
  }

  private include(field: WindowField, v: number | null): void {
    if (v === null) return;
    const acc = this.sums.get(field)!;
    acc.sum += v;
    acc.n++;
    acc.last = v;
  }

  private mean(field: WindowField): number | null {
    const acc = this.sums.get(field)!;
    return acc.n ? acc.sum / acc.n : null;
  }

  /** The current window's score, ending it. */
  finish(): ScorePoint | null {
    const window = this.window;
    const samples = this.samples;
    const m = Object.fromEntries([...this.sums.keys()].map((f) => [f, this.mean(f)])) as Record<WindowField, number | null>;
    const frozen = samples ? this.frozen / samples : 0;
    for (const acc of this.sums.values()) [acc.sum, acc.n] = [0, 0];
    [this.samples, this.frozen, this.lastTs] = [0, 0, null];
    if (window === null || !samples) return null;
    let mos: number | null = null;
    let lowers: Lowers = {};
    let delayMs: number | undefined;
    if (this.meta.kind === 'audio') {
      const lossPct = m.missedPct;
      if (lossPct !== null) {
        const c = { rttMs: m.rttMs ?? 0, jitterBufferMs: m.jitterBufferMs ?? 2 * (m.jitterMs ?? 0), lossPct, codec: this.meta.codec };
        [mos, lowers, delayMs] = [audioMos(c), audioShortfall(c), mouthToEarMs(c)];
      }
    } else if (m.kbps !== null && m.fps !== null && m.height !== null) {
      // A browser that reports only the height: a 16:9 picture.
      const c = {
        kbps: m.kbps,
        fps: m.fps,
        width: m.width ?? (m.height * 16) / 9,
        height: m.height,
        frozen,
        lossPct: m.lossPct ?? 0,
        codec: this.meta.codec,
        screenshare: this.meta.contentType === 'screenshare',
      };
      [mos, lowers] = [videoMos(c), videoShortfall(c) ?? {}];
    }
    return mos === null
      ? null
      : {
          ts: window * SCORE_WINDOW_MS,
          streamId: this.meta.id,
          participant: this.meta.participant,
          kind: this.meta.kind,
          mos,
          lowers,
          weight: streamWeight(this.meta.kind, m),
          ...(delayMs === undefined ? {} : { delayMs }),
        };
  }
}

/** A second of received audio as the score reads it. */
export type HeardSecond = Record<'packets' | 'concealedPct' | 'lossPct', number | null>;

/**
 * What a listener missed of a second of audio, % — the E-model's effective loss: all of it when not one
 * packet came (an outage: its concealment is silent, which the concealed share leaves out so a speaker's
 * pauses do not count; what a sender stopped by choice is not scored at all, and a sender in DTX still
 * sends a few packets a second), else the concealed share where reported (loss that arrived too late
 * counts; loss repaired by FEC does not), else the packets lost. `concealedWeight` under 1 reads that
 * share of it as concealed and the rest as packets lost (bench:quality fits it to PESQ).
 */
export function missedPct({ packets, concealedPct, lossPct }: HeardSecond, concealedWeight = 1): number | null {
  if (packets === 0) return 100;
  const [concealed, lost] = [concealedPct ?? lossPct, lossPct ?? concealedPct];
  return concealed === null || lost === null ? null : concealedWeight * concealed + (1 - concealedWeight) * lost;
}

/** A participant's score in one window, and what lowers it (of the stream that scored lowest). */
export interface ParticipantWindow {
  ts: number;
  mos: number;
  lowers: Lowers;
}

/**
 * What a participant saw and heard, 1–5, from what it heard (A: its audio streams' scores weighted by
 * `streamWeight`) and what it saw (V: its videos', the same): a product model of audiovisual quality
 * (Hands 2004, head-and-shoulders content: 1.15 + 0.17·A·V), so that bad sound or a stopped picture
 * each pull it down and neither a thumbnail nor a placeholder sinks it. With one kind only, that kind's.
 * The same formula is the database's `av_score()` (the migration participant_experience), checked
 * against this by stored-scores.int.
 */
export function experienced(heard: number | null, seen: number | null): number {
  if (heard === null) return seen ?? 1;
  if (seen === null) return heard;
  return Math.min(5, Math.max(1, AV_INTERCEPT + AV_PRODUCT * heard * seen));
}
const AV_INTERCEPT = 1.15;
const AV_PRODUCT = 0.17;

/** The weighted mean of these scores; null without any. */
function weighted(points: readonly Pick<ScorePoint, 'mos' | 'weight'>[]): number | null {
  let [sum, weights] = [0, 0];
  for (const p of points) {
    sum += p.mos * p.weight;
    weights += p.weight;
  }
  return weights ? sum / weights : null;
}

/**
 * A participant's score per window: what it saw and heard (`experienced`), not the lowest of its
 * streams; the call's: the mean over its participants, and its worst participant's.
 */
export function participantScores(
  points: readonly Pick<ScorePoint, 'participant' | 'ts' | 'mos' | 'lowers' | 'kind' | 'weight'>[],
): Map<string, ParticipantWindow[]> {
  const by = new Map<string, Map<number, (typeof points)[number][]>>();
  for (const p of points) {
    const windows = by.get(p.participant) ?? new Map<number, (typeof points)[number][]>();
    windows.set(p.ts, [...(windows.get(p.ts) ?? []), p]);
    by.set(p.participant, windows);
  }
  return new Map(
    [...by].map(([participant, windows]) => [
      participant,
      [...windows]
        .sort(([a], [b]) => a - b)
        .map(([ts, ps]) => {
          const lowest = ps.reduce((a, b) => (b.mos < a.mos ? b : a));
          const mos = experienced(weighted(ps.filter((p) => p.kind === 'audio')), weighted(ps.filter((p) => p.kind === 'video')));
          return { ts, mos, lowers: lowest.lowers };
        }),
    ]),
  );
}

export function callScores(points: readonly ScorePoint[]): { ts: number; mean: number; worst: number }[] {
  const perWindow = new Map<number, number[]>();
  for (const series of participantScores(points).values())
    for (const { ts, mos } of series) perWindow.set(ts, [...(perWindow.get(ts) ?? []), mos]);
  return [...perWindow].sort(([a], [b]) => a - b).map(([ts, xs]) => ({ ts, mean: mean(xs)!, worst: Math.min(...xs) }));
}

/** A series' summary: its mean over the windows, and its worst window. */
export function scoreSummary(series: readonly { mos: number }[]): { mean: number | null; worst: number | null } {
  return { mean: mean(series.map((s) => s.mos)), worst: series.length ? Math.min(...series.map((s) => s.mos)) : null };
}
