import { describe, expect, it } from 'vitest';
import { alignInLoop, loopCut, syllables } from './speech.js';

const RATE = 16_000;

describe('alignInLoop', () => {
  const source = syllables(8, RATE);

  it('finds where in the loop a stretch began, across the loop’s end, to the sample', () => {
    for (const offset of [0, 12_345, source.length - 20_000]) {
      const stretch = loopCut(source, offset, 5 * RATE);
      const a = alignInLoop(source, stretch, RATE);
      expect(a.offset).toBe(offset);
      expect(a.correlation).toBeCloseTo(1, 6);
    }
  });

  it('finds it through noise, a lower level and a lost 200 ms; says a stretch of something else is not the source', () => {
    const stretch = loopCut(source, 40_000, 5 * RATE).map((v, k) => (k >= 30_000 && k < 33_200 ? 0 : 0.4 * v + 0.02 * Math.sin(k)));
    const a = alignInLoop(source, stretch, RATE);
    expect(a.offset).toBe(40_000);
    expect(a.correlation).toBeGreaterThan(0.9);
    expect(alignInLoop(source, syllables(5, RATE, 99), RATE).correlation).toBeLessThan(0.3);
  });

  it('searches only near where it is told, when told', () => {
    const stretch = loopCut(source, 40_000, 5 * RATE);
    expect(alignInLoop(source, stretch, RATE, { offset: 41_000, withinS: 0.2 }).offset).toBe(40_000);
    // Across the loop's end too; and where the stretch is not within reach, the best within it, matching badly.
    expect(alignInLoop(source, loopCut(source, 100, 5 * RATE), RATE, { offset: source.length - 500, withinS: 0.2 }).offset).toBe(100);
    expect(alignInLoop(source, stretch, RATE, { offset: 80_000, withinS: 0.2 }).correlation).toBeLessThan(0.5);
  });

  it('refuses a loop of a part frame', () => {
    expect(() => alignInLoop(source.subarray(1), source.subarray(0, RATE), RATE)).toThrow(/whole number of 160-sample frames/);
  });
});
