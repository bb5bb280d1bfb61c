import { describe, expect, it } from 'vitest';
import { pearson, ranks, spearman } from './correlation.js';

describe('correlation', () => {
  it('ranks ties by the mean of the ranks they span', () => {
    expect(ranks([10, 30, 20, 30])).toEqual([1, 3.5, 2, 3.5]);
  });

  it("is 1 for a straight line, −1 for a falling one, and Spearman's sees any monotone curve as 1", () => {
    const xs = [1, 2, 3, 4, 5];
    expect(
      pearson(
        xs,
        xs.map((x) => 3 * x + 1),
      ),
    ).toBeCloseTo(1, 12);
    expect(
      pearson(
        xs,
        xs.map((x) => -x),
      ),
    ).toBeCloseTo(-1, 12);
    expect(
      pearson(
        xs,
        xs.map((x) => x ** 4),
      ),
    ).toBeLessThan(0.95);
    expect(
      spearman(
        xs,
        xs.map((x) => x ** 4),
      ),
    ).toBe(1);
  });

  it('matches a value worked by hand', () => {
    // x = 1..4, y = 2, 1, 4, 3: cov 3, var 5 and 5 → 0.6
    expect(pearson([1, 2, 3, 4], [2, 1, 4, 3])).toBeCloseTo(0.6, 12);
  });

  it('is null where a series does not vary or is too short, and refuses series of different lengths', () => {
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearman([1], [2])).toBeNull();
    expect(() => pearson([1, 2], [1])).toThrow('2 values against 1');
  });
});
