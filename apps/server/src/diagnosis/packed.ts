import type { Sample } from '@rtcscope/diagnosis';
import type { DecodedRow } from '@rtcscope/protocol';

/**
 * Batches' samples for the diagnosis thread, each batch's rows as numbers (id, time, then each value, NaN
 * where unknown) in one array for them all, which moves to the thread without being copied: a structured
 * clone of the rows took more of the ingest thread than judging them, and an array (and a transfer) per
 * batch was still a third of the hand-over. Returns each list's view on that one array, in order.
 */
export function packSamples(lists: readonly (readonly DecodedRow[])[], width: number): Float64Array<ArrayBuffer>[] {
  let rows = 0;
  for (const list of lists) rows += list.length;
  const packed = new Float64Array(rows * (width + 2));
  const views: Float64Array<ArrayBuffer>[] = [];
  let at = 0;
  for (const list of lists) {
    const start = at;
    for (const r of list) {
      packed[at++] = r.index;
      packed[at++] = r.ts;
      for (let k = 0; k < width; k++) packed[at++] = r.values[k] ?? Number.NaN;
    }
    views.push(packed.subarray(start, at));
  }
  return views;
}

/** The samples of one list of `packSamples`, each a view on the one array. */
export function unpackSamples(packed: Float64Array, width: number): Sample[] {
  const samples: Sample[] = [];
  for (let at = 0; at < packed.length; at += width + 2)
    samples.push({ id: packed[at]!, ts: packed[at + 1]!, v: packed.subarray(at + 2, at + 2 + width) });
  return samples;
}
