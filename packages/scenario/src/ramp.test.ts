import { describe, expect, it } from 'vitest';
import { rampValue } from './ramp.js';

describe('rampValue', () => {
  it('starts at from and ends at to, for both shapes and directions', () => {
    for (const shape of ['linear', 'exponential'] as const) {
      expect(rampValue(0, 250, shape, 0)).toBeCloseTo(0, 9);
      expect(rampValue(0, 250, shape, 1)).toBeCloseTo(250, 9);
      expect(rampValue(500, 0, shape, 0)).toBeCloseTo(500, 9);
      expect(rampValue(500, 0, shape, 1)).toBeCloseTo(0, 9);
    }
  });
  it('moves evenly when linear', () => {
    expect(rampValue(0, 500, 'linear', 0.5)).toBe(250);
    expect(rampValue(250, 0, 'linear', 0.25)).toBe(187.5);
  });
  it('rises slowly then fast, and falls fast then slowly, when exponential', () => {
    expect(rampValue(0, 250, 'exponential', 0.5)).toBeLessThan(25);
    expect(rampValue(0, 250, 'exponential', 0.9)).toBeGreaterThan(100);
    expect(rampValue(500, 0, 'exponential', 0.1)).toBeLessThan(300);
    expect(rampValue(500, 0, 'exponential', 0.5)).toBeLessThan(50);
  });
  it('is monotonic', () => {
    let prev = -1;
    for (let u = 0; u <= 1; u += 0.01) {
      const v = rampValue(0, 250, 'exponential', u);
      expect(v).toBeGreaterThanOrEqual(prev);
      prev = v;
    }
  });
  it('clamps outside 0..1', () => {
    expect(rampValue(0, 10, 'linear', 2)).toBe(10);
    expect(rampValue(0, 10, 'linear', -1)).toBe(0);
  });
});
