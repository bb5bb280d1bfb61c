/**
 * Per-interval values from cumulative getStats counters. A counter that went backwards (a reset, a
 * replaced track, a new SSRC) or is missing on either side yields null, never a negative or a spike.
 */
export function counterDelta(prev: number | undefined, cur: number | undefined): number | null {
  if (!isCount(prev) || !isCount(cur) || cur < prev) return null;
  return cur - prev;
}

/** Kilobits per second from a byte-counter delta over an interval in milliseconds. */
export function kbpsFromBytes(bytesDelta: number | null, intervalMs: number): number | null {
  if (bytesDelta === null || !(intervalMs > 0)) return null;
  return (bytesDelta * 8) / intervalMs;
}

/** Events per second from a counter delta over an interval in milliseconds. */
export function perSecond(delta: number | null, intervalMs: number): number | null {
  if (delta === null || !(intervalMs > 0)) return null;
  return (delta * 1000) / intervalMs;
}

/** Lost share of packets in percent; receivers may report more lost than expected after a reset. */
export function lossPercent(received: number | null, lost: number | null): number | null {
  if (received === null || lost === null) return null;
  const clampedLost = Math.max(0, lost);
  const expected = received + clampedLost;
  return expected === 0 ? 0 : (100 * clampedLost) / expected;
}

/** `part` as a percentage of `whole` (both counter deltas over one interval); 0 of nothing is 0 %. */
export function sharePercent(part: number | null, whole: number | null): number | null {
  if (part === null || whole === null) return null;
  return whole === 0 ? 0 : Math.min(100, (100 * part) / whole);
}

/** The mean per item of an accumulated quantity, from its delta and the item count's delta (e.g. jitter-buffer seconds per emitted sample). */
export function meanPerItem(totalDelta: number | null, countDelta: number | null): number | null {
  if (totalDelta === null || countDelta === null || countDelta === 0) return null;
  return totalDelta / countDelta;
}

function isCount(v: number | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}
