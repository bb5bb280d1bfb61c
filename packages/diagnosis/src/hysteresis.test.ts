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

  it("counts a sample for the seconds it covers: a recording's 10-s poll is ten of the SDK's 1-s samples", () => {
    const h = new Hysteresis(2, 3);
    // One 10-s sample of loss raises, from when its interval began; one 10-s sample without clears.
    expect(h.next(20_000, 1, undefined, 10_000)).toEqual({ kind: 'raise', start: 11_000, level: 1 });
    expect(h.next(30_000, 0, undefined, 10_000)).toEqual({ kind: 'clear', end: 21_000 });
    // A live second that came a little late is still one second: two are needed.
    const live = new Hysteresis(2, 3);
    expect(live.next(1000, 1, undefined, 1300)).toBeNull();
    expect(live.next(2000, 1, undefined, 1000)).toEqual({ kind: 'raise', start: 1000, level: 1 });
    // Jitsi's 2-s polls: each is two seconds.
    expect(new Hysteresis(4, 4).next(4000, 2, undefined, 2000)).toBeNull();
  });
});
