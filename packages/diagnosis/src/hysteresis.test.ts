import { describe, expect, it } from 'vitest';
import { Hysteresis } from './hysteresis.js';
import type { Level } from './types.js';

const feed = (levels: Level[], h = new Hysteresis(2, 3)) => levels.map((l, t) => h.next(t, l));

describe('hysteresis', () => {
  it('raises after two bad samples in a row, from the first of them', () => {
    expect(feed([0, 1, 1, 1])).toEqual([null, null, { kind: 'raise', start: 1, level: 1 }, null]);
  });

  it('neither raises on one noisy sample nor clears on one good one', () => {
    expect(feed([1, 0, 1, 0, 2, 0]).filter(Boolean)).toEqual([]);
    expect(feed([1, 1, 0, 1, 0, 0, 1]).filter(Boolean)).toEqual([{ kind: 'raise', start: 0, level: 1 }]);
  });

  it('clears after three good samples, ending at the first', () => {
    expect(feed([1, 1, 0, 0, 0]).filter(Boolean)).toEqual([
      { kind: 'raise', start: 0, level: 1 },
      { kind: 'clear', end: 2 },
    ]);
  });

  it('says when an open issue becomes critical, once', () => {
    expect(feed([1, 1, 2, 2, 1]).filter(Boolean)).toEqual([
      { kind: 'raise', start: 0, level: 1 },
      { kind: 'worse', level: 2 },
    ]);
    expect(feed([1, 2]).filter(Boolean)).toEqual([{ kind: 'raise', start: 0, level: 2 }]);
  });

  it('lets a gap in the data change nothing', () => {
    expect(feed([1, null, 1]).filter(Boolean)).toEqual([{ kind: 'raise', start: 0, level: 1 }]);
    expect(feed([1, 1, 0, null, 0, null, 0]).filter(Boolean)).toEqual([
      { kind: 'raise', start: 0, level: 1 },
      { kind: 'clear', end: 2 },
    ]);
  });
});
