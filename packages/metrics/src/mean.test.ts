import { describe, expect, it } from 'vitest';
import { mean } from './mean.js';

describe('mean', () => {
  it('is the arithmetic mean, and null of nothing', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([-4])).toBe(-4);
    expect(mean([])).toBeNull();
  });
});
