import type { DecodedBatch } from '@rtcscope/protocol';

/** Times older than this, or this far ahead of the server's clock, point at a wrong client clock. */
export const MAX_AGE_MS = 7 * 86_400_000;
export const MAX_AHEAD_MS = 10 * 60_000;

/**
 * The first time a message carries outside the accepted window, with the field that carries it, or
 * null. Every time counts, whatever the message holds: its base time, each sample's and each event's.
 * A message of events or metadata alone dates its call as surely as samples do (from its base time).
 */
export function timeOutsideWindow({ batch, streamRows, connectionRows }: DecodedBatch, now: number): { field: string; ts: number } | null {
  const outside = (ts: number) => ts < now - MAX_AGE_MS || ts > now + MAX_AHEAD_MS;
  if (outside(batch.t0)) return { field: 't0', ts: batch.t0 };
  const s = streamRows.findIndex((r) => outside(r.ts));
  if (s >= 0) return { field: `s[${s}][2]`, ts: streamRows[s]!.ts };
  const c = connectionRows.findIndex((r) => outside(r.ts));
  if (c >= 0) return { field: `c[${c}][2]`, ts: connectionRows[c]!.ts };
  const events = batch.e ?? [];
  const e = events.findIndex((row) => outside(batch.t0 + row[1]));
  return e >= 0 ? { field: `e[${e}][1]`, ts: batch.t0 + events[e]![1] } : null;
}
