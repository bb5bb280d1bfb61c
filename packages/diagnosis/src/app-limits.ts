import type { SenderSettings } from '@rtcscope/protocol/fields';
import type { Sample } from './types.js';
import type { StreamView } from './view.js';

/**
 * What a sent stream's own app holds it to (`RTCRtpSender.setParameters()`: a `maxBitrate` to save
 * bandwidth, a picture scaled down, a frame rate capped), and whether that holds it now: a rate, size or
 * frame rate the app chose is the app's, not the CPU's or the network's.
 */
export interface AppLimit {
  /** The sum of its active encodings' `maxBitrate`, kbit/s; null where any sends without one. */
  kbps: number | null;
  /** The smallest `scaleResolutionDownBy` of its active encodings, where over 1. */
  scale: number | null;
  /** The highest `maxFramerate` of its active encodings, where every one has one. */
  fps: number | null;
  /** When its sender's settings were said, ms: the stream's rate before then was not the app's. */
  since: number;
}

/**
 * A stream's rate counts as held by its cap while most of its last `HELD_WINDOW_S` seconds since its app
 * set it lay between these shares of it: an encoder at its cap drops frames and falls short of it or
 * overshoots from second to second (Chrome at 50 kbit/s on a loaded machine: 28–63 kbit/s, a key frame's
 * second several times the cap), so one second off the cap is still the cap's.
 */
const HELD_SHARE = [0.5, 1.5] as const;
const HELD_WINDOW_S = 5;

/** The limits an app's settings set, said at `since`, or null when they set none. */
export function appLimitOf(settings: SenderSettings | null, since: number): AppLimit | null {
  const active = settings?.encodings.filter((e) => e.active) ?? [];
  if (!active.length) return null;
  const bitrates = active.map((e) => e.maxBitrate);
  const kbps = bitrates.every((r) => r !== null) ? bitrates.reduce((a, b) => a + b!, 0) / 1000 : null;
  const scales = active.map((e) => e.scaleResolutionDownBy ?? 1);
  const scale = Math.min(...scales) > 1 ? Math.min(...scales) : null;
  const framerates = active.map((e) => e.maxFramerate);
  const fps = framerates.every((r) => r !== null) ? Math.max(...(framerates as number[])) : null;
  return kbps === null && scale === null && fps === null ? null : { kbps, scale, fps, since };
}

/** What of its app's limit holds the stream in this sample, in words ("limited by the app to 50 kbit/s"), or null. */
export function heldByApp(stream: StreamView, sample: Sample): string | null {
  const limit = stream.appLimit;
  if (!limit) return null;
  const held: string[] = [];
  if (limit.kbps !== null) {
    const [low, high] = [HELD_SHARE[0] * limit.kbps, HELD_SHARE[1] * limit.kbps];
    const seconds = Math.min(HELD_WINDOW_S, (sample.ts - limit.since) / 1000);
    const { known, passing } = stream.tally('kbps', seconds, (v) => v >= low && v <= high);
    if (known > 0 && 2 * passing >= known) held.push(`${fmt(limit.kbps)} kbit/s`);
  }
  if (limit.scale !== null) held.push(`a picture scaled down ${fmt(limit.scale)}×`);
  const fps = stream.value('fps', sample);
  if (limit.fps !== null && fps !== null && fps <= limit.fps + 1) held.push(`${fmt(limit.fps)} fps`);
  return held.length ? `limited by the app to ${held.join(', ')}` : null;
}

const fmt = (v: number) => String(Number(v.toFixed(1)));
