import { describe, expect, it } from 'vitest';
import { LOOK_BACK_MS, readRanges } from './elsewhere.js';

describe('readRanges', () => {
  const now = 1_800_000_000_000;

  it('reads the streams caught up from the oldest of them, in one read', () => {
    expect(
      readRanges(
        new Map([
          [1, now - 1000],
          [2, now - 2500],
          [3, now - 800],
        ]),
        now,
      ),
    ).toEqual([{ ids: [1, 2, 3], since: now - 2500 }]);
  });

  it('reads a stream gone quiet apart, and no further back than the look-back, however long ago its last sample', () => {
    const latest = new Map([
      [1, now - 1000],
      [2, now - 3_600_000],
      [3, now - LOOK_BACK_MS],
      [4, now - 1200],
    ]);
    expect(readRanges(latest, now)).toEqual([
      { ids: [1, 4], since: now - 1200 },
      { ids: [2, 3], since: now - LOOK_BACK_MS },
    ]);
  });

  it('makes no read without streams', () => {
    expect(readRanges(new Map(), now)).toEqual([]);
  });
});
