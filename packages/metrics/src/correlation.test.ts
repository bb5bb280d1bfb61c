import { describe, expect, it } from 'vitest';
import { bootstrapInterval, pearson, ranks, spearman } from './correlation.js';

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

  describe('bootstrapInterval', () => {
    /** Pairs of a known correlation: y = ρ·x + √(1−ρ²)·noise, both standard normal (Box–Muller on a seeded generator). */
    function correlated(n: number, rho: number, seed: number) {
      let s = seed;
      const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
      const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
      const xs = Array.from({ length: n }, normal);
      return { xs, ys: xs.map((x) => rho * x + Math.sqrt(1 - rho * rho) * normal()) };
    }

    it('covers the true correlation about as often as it says', () => {
      // Pearson of normal pairs is unbiased enough at n = 60 for a 95 % interval to cover ρ in most trials.
      let covered = 0;
      for (let t = 0; t < 40; t++) {
        const { xs, ys } = correlated(60, 0.6, 1000 + t);
        const [lo, hi] = bootstrapInterval(pearson, xs, ys, { resamples: 500, seed: t + 1 })!;
        if (lo <= 0.6 && 0.6 <= hi) covered++;
      }
      expect(covered).toBeGreaterThanOrEqual(33);
    });

    it("is wider when pairs come in groups that move together, as a call's windows do", () => {
      // Ten calls of eight windows each: within a call the windows barely differ, so there are ten pieces of evidence, not eighty.
      const { xs: callX, ys: callY } = correlated(10, 0.5, 7);
      const xs = callX.flatMap((x, c) => Array.from({ length: 8 }, (_, k) => x + 0.01 * k + 0.001 * c));
      const ys = callY.flatMap((y, c) => Array.from({ length: 8 }, (_, k) => y + 0.01 * k - 0.001 * c));
      const groups = callX.flatMap((_, c) => Array.from({ length: 8 }, () => `call-${c}`));
      const [alone, grouped] = [bootstrapInterval(spearman, xs, ys), bootstrapInterval(spearman, xs, ys, { groups })];
      expect(grouped![1] - grouped![0]).toBeGreaterThan(1.5 * (alone![1] - alone![0]));
    });

    it('gives the same interval for the same seed, and none without two groups', () => {
      const { xs, ys } = correlated(30, 0.3, 3);
      expect(bootstrapInterval(spearman, xs, ys, { seed: 5 })).toEqual(bootstrapInterval(spearman, xs, ys, { seed: 5 }));
      expect(bootstrapInterval(spearman, xs, ys, { seed: 5 })).not.toEqual(bootstrapInterval(spearman, xs, ys, { seed: 6 }));
      expect(bootstrapInterval(spearman, [1, 2, 3], [1, 2, 3], { groups: ['a', 'a', 'a'] })).toBeNull();
      expect(bootstrapInterval(spearman, [1, 2, 3, 4], [1, 2, 3, 4])).toEqual([1, 1]);
      expect(() => bootstrapInterval(spearman, [1, 2], [1, 2], { groups: ['a'] })).toThrow('2 values against 2 and 1 groups');
    });
  });
});
