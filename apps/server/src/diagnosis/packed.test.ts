import { describe, expect, it } from 'vitest';
import { packSamples, unpackSamples } from './packed.js';

describe('packed samples', () => {
  it('come back as they were, unknown values as NaN', () => {
    const rows = [
      { index: 7, seq: 1, ts: 1_700_000_000_123, values: [512.5, null, 3] },
      { index: 9, seq: 2, ts: 1_700_000_001_123, values: [null, 0, -1] },
    ];
    const samples = unpackSamples(packSamples(rows, 3), 3);
    expect(samples.map((s) => ({ id: s.id, ts: s.ts, v: [...Array.from(s.v)] }))).toEqual([
      { id: 7, ts: 1_700_000_000_123, v: [512.5, Number.NaN, 3] },
      { id: 9, ts: 1_700_000_001_123, v: [Number.NaN, 0, -1] },
    ]);
  });

  it('pack nothing into an empty array', () => {
    expect(unpackSamples(packSamples([], 5), 5)).toEqual([]);
  });
});
