import { describe, expect, it } from 'vitest';
import { counterDelta, kbpsFromBytes, lossPercent, perSecond } from './counters.js';

describe('counterDelta', () => {
  it('returns the increase of a growing counter', () => {
    expect(counterDelta(1000, 1500)).toBe(500);
  });
  it('returns null when the counter went backwards (reset)', () => {
    expect(counterDelta(1500, 20)).toBeNull();
  });
  it('returns null when either side is missing or not a finite count', () => {
    expect(counterDelta(undefined, 20)).toBeNull();
    expect(counterDelta(10, undefined)).toBeNull();
    expect(counterDelta(Number.NaN, 20)).toBeNull();
    expect(counterDelta(-1, 20)).toBeNull();
  });
});

describe('rates', () => {
  it('converts 125000 bytes over 1 s to 1000 kbps', () => {
    expect(kbpsFromBytes(125_000, 1000)).toBe(1000);
  });
  it('scales with the interval length', () => {
    expect(kbpsFromBytes(125_000, 2000)).toBe(500);
    expect(perSecond(60, 2000)).toBe(30);
  });
  it('refuses zero or negative intervals', () => {
    expect(kbpsFromBytes(100, 0)).toBeNull();
    expect(perSecond(5, -10)).toBeNull();
  });
});

describe('lossPercent', () => {
  it('is the lost share of expected packets', () => {
    expect(lossPercent(95, 5)).toBe(5);
  });
  it('is 0 with no traffic and null when unknown', () => {
    expect(lossPercent(0, 0)).toBe(0);
    expect(lossPercent(null, 3)).toBeNull();
  });
  it('treats a negative lost delta (duplicates) as no loss', () => {
    expect(lossPercent(100, -2)).toBe(0);
  });
});
