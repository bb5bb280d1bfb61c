import { describe, expect, it } from 'vitest';
import { addTo, bucketOf, emptyHistogram, type Histogram, quantile } from './histogram.js';

const of = (values: number[]): Histogram => {
  const h = emptyHistogram();
  for (const v of values) {
    h.n++;
    h.sum += v;
    const b = String(bucketOf(v));
    h.h[b] = (h.h[b] ?? 0) + 1;
  }
  return h;
};

/** percentile_cont, written out. */
function exact(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  const at = q * (s.length - 1);
  const low = Math.floor(at);
  return s[low]! + (at - low) * (s[Math.min(low + 1, s.length - 1)]! - s[low]!);
}

describe('histograms', () => {
  it('read percentiles within 1 % of the exact ones, over metrics of every range, and add up across days', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const [lo, hi] of [
      [1, 5],
      [0.01, 30],
      [20, 900],
      [100, 4000],
    ] as const) {
      const days = Array.from({ length: 5 }, () => Array.from({ length: 400 }, () => lo + (hi - lo) * random() ** 2));
      const all = days.flat();
      const merged = emptyHistogram();
      for (const d of days) addTo(merged, of(d));
      expect(merged.n).toBe(all.length);
      expect(merged.sum / merged.n).toBeCloseTo(all.reduce((a, b) => a + b, 0) / all.length, 9);
      for (const q of [0.5, 0.9, 0.99]) {
        const want = exact(all, q);
        expect(Math.abs(quantile(merged, q)! - want) / want, `${lo}–${hi} q${q}`).toBeLessThan(0.01);
      }
    }
  });

  it('hold zeros, say nothing of no values, and give one value back as itself within 1 %', () => {
    expect(quantile(of([0, 0, 0, 2]), 0.5)).toBe(0);
    expect(quantile(emptyHistogram(), 0.5)).toBeNull();
    expect(Math.abs(quantile(of([42]), 0.99)! - 42) / 42).toBeLessThan(0.01);
  });
});
