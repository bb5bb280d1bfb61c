import { describe, expect, it } from 'vitest';
import { packSamples, unpackSamples } from './packed.js';

const plain = (packed: Float64Array) => unpackSamples(packed, 3).map((s) => ({ id: s.id, ts: s.ts, v: [...Array.from(s.v)] }));

describe('packed samples', () => {
  it('come back as they were, each list on its own, unknown values as NaN, all in one buffer', () => {
    const first = [
      { index: 7, seq: 1, ts: 1_700_000_000_123, values: [512.5, null, 3] },
      { index: 9, seq: 2, ts: 1_700_000_001_123, values: [null, 0, -1] },
    ];
    const second = [{ index: 4, seq: 8, ts: 1_700_000_002_000, values: [1, 2] }];
    const [a, empty, b] = packSamples([first, [], second], 3);
    expect(plain(a!)).toEqual([
      { id: 7, ts: 1_700_000_000_123, v: [512.5, Number.NaN, 3] },
      { id: 9, ts: 1_700_000_001_123, v: [Number.NaN, 0, -1] },
    ]);
    expect(plain(empty!)).toEqual([]);
    expect(plain(b!)).toEqual([{ id: 4, ts: 1_700_000_002_000, v: [1, 2, Number.NaN] }]);
    expect(new Set([a!.buffer, empty!.buffer, b!.buffer]).size).toBe(1);
  });

  it('pack nothing into an empty array', () => {
    expect(packSamples([], 5)).toEqual([]);
    expect(unpackSamples(packSamples([[]], 5)[0]!, 5)).toEqual([]);
  });
});
