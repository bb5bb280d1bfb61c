import { describe, expect, it } from 'vitest';
import { jainIndex } from './fairness.js';

describe('jainIndex', () => {
  it('is 1 for equal rates', () => {
    expect(jainIndex([800, 800, 800])).toBeCloseTo(1, 12);
  });
  it('is 1/n when one flow takes all', () => {
    expect(jainIndex([2000, 0, 0, 0])).toBeCloseTo(0.25, 12);
  });
  it('matches the paper: 1408 vs 451 kbps gives 0.79', () => {
    expect(jainIndex([1408, 451])).toBeCloseTo(0.7905, 3);
  });
  it('computes a known mixed value', () => {
    // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
    expect(jainIndex([1, 2, 3])).toBeCloseTo(36 / 42, 12);
  });
  it('leaves out unknown rates and is null when none are known', () => {
    expect(jainIndex([null, 500, 500])).toBeCloseTo(1, 12);
    expect(jainIndex([null])).toBeNull();
    expect(jainIndex([])).toBeNull();
  });
  it('calls silence fair', () => {
    expect(jainIndex([0, 0])).toBe(1);
  });
});
