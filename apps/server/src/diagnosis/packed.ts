import type { Sample } from '@rtcscope/diagnosis';
import type { DecodedRow } from '@rtcscope/protocol';

/**
 * A batch's samples for the diagnosis thread, as one array of numbers (id, time, then each value, NaN
 * where unknown) that moves to the thread without being copied: a structured clone of the rows took
 * more of the ingest thread than judging them.
 */
export function packSamples(rows: readonly DecodedRow[], width: number): Float64Array<ArrayBuffer> {
  const packed = new Float64Array(rows.length * (width + 2));
  let at = 0;
  for (const r of rows) {
    packed[at++] = r.index;
    packed[at++] = r.ts;
    for (let k = 0; k < width; k++) packed[at++] = r.values[k] ?? Number.NaN;
  }
  return packed;
}

/** The samples of `packSamples`, each a view on the one array. */
export function unpackSamples(packed: Float64Array, width: number): Sample[] {
  const samples: Sample[] = [];
  for (let at = 0; at < packed.length; at += width + 2)
    samples.push({ id: packed[at]!, ts: packed[at + 1]!, v: packed.subarray(at + 2, at + 2 + width) });
  return samples;
}
