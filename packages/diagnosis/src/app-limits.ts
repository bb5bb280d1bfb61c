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

/** A stream's rate counts as held by its cap between these shares of it: an encoder stays a little under its target, and a packet's headers and a late second's bytes go over it. */
const HELD_SHARE = [0.7, 1.3] as const;

/** The limits an app's settings set, or null when they set none. */
export function appLimitOf(settings: SenderSettings | null): AppLimit | null {
  const active = settings?.encodings.filter((e) => e.active) ?? [];
  if (!active.length) return null;
  const rates = active.map((e) => e.maxBitrate);
  const kbps = rates.every((r) => r !== null) ? rates.reduce((a, b) => a + b!, 0) / 1000 : null;
  const scales = active.map((e) => e.scaleResolutionDownBy ?? 1);
  const scale = Math.min(...scales) > 1 ? Math.min(...scales) : null;
  const rates2 = active.map((e) => e.maxFramerate);
  const fps = rates2.every((r) => r !== null) ? Math.max(...(rates2 as number[])) : null;
  return kbps === null && scale === null && fps === null ? null : { kbps, scale, fps };
}

/** What of its app's limit holds the stream in this sample, in words ("limited by the app to 50 kbit/s"), or null. */
export function heldByApp(stream: StreamView, sample: Sample): string | null {
  const limit = stream.appLimit;
  if (!limit) return null;
  const held: string[] = [];
  const kbps = stream.value('kbps', sample);
  if (limit.kbps !== null && kbps !== null && kbps >= HELD_SHARE[0] * limit.kbps && kbps <= HELD_SHARE[1] * limit.kbps)
    held.push(`${fmt(limit.kbps)} kbit/s`);
  if (limit.scale !== null) held.push(`a picture scaled down ${fmt(limit.scale)}×`);
  const fps = stream.value('fps', sample);
  if (limit.fps !== null && fps !== null && fps <= limit.fps + 1) held.push(`${fmt(limit.fps)} fps`);
  return held.length ? `limited by the app to ${held.join(', ')}` : null;
}

const fmt = (v: number) => String(Number(v.toFixed(1)));
