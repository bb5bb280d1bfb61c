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
}

/**
 * A stream's rate counts as held by its cap while it stays under the top share of it (a packet's headers
 * and a late second's bytes go over it) and reached the bottom share within the last `HELD_WINDOW_S`: an
 * encoder at its cap drops frames and falls short of it from second to second (Chrome at 50 kbit/s, under
 * a loaded machine's jitter: 28–63 kbit/s), so one short second is still the cap's.
 */
const HELD_SHARE = [0.7, 1.3] as const;
const HELD_WINDOW_S = 5;

/** The limits an app's settings set, or null when they set none. */
export function appLimitOf(settings: SenderSettings | null): AppLimit | null {
  const active = settings?.encodings.filter((e) => e.active) ?? [];
  if (!active.length) return null;
  const bitrates = active.map((e) => e.maxBitrate);
  const kbps = bitrates.every((r) => r !== null) ? bitrates.reduce((a, b) => a + b!, 0) / 1000 : null;
  const scales = active.map((e) => e.scaleResolutionDownBy ?? 1);
  const scale = Math.min(...scales) > 1 ? Math.min(...scales) : null;
  const framerates = active.map((e) => e.maxFramerate);
  const fps = framerates.every((r) => r !== null) ? Math.max(...(framerates as number[])) : null;
  return kbps === null && scale === null && fps === null ? null : { kbps, scale, fps };
}

/** What of its app's limit holds the stream in this sample, in words ("limited by the app to 50 kbit/s"), or null. */
export function heldByApp(stream: StreamView, sample: Sample): string | null {
  const limit = stream.appLimit;
  if (!limit) return null;
  const held: string[] = [];
  const kbps = stream.value('kbps', sample);
  if (
    limit.kbps !== null &&
    kbps !== null &&
    kbps <= HELD_SHARE[1] * limit.kbps &&
    (stream.peak('kbps', HELD_WINDOW_S) ?? 0) >= HELD_SHARE[0] * limit.kbps
  )
    held.push(`${fmt(limit.kbps)} kbit/s`);
  if (limit.scale !== null) held.push(`a picture scaled down ${fmt(limit.scale)}×`);
  const fps = stream.value('fps', sample);
  if (limit.fps !== null && fps !== null && fps <= limit.fps + 1) held.push(`${fmt(limit.fps)} fps`);
  return held.length ? `limited by the app to ${held.join(', ')}` : null;
}

const fmt = (v: number) => String(Number(v.toFixed(1)));
