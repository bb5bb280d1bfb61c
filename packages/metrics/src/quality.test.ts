import { describe, expect, it } from 'vitest';
import { qualityHint } from './quality.js';

describe('qualityHint', () => {
  it('is unknown without any input', () => {
    expect(qualityHint({ lossPct: null, rttMs: null, fps: null })).toBe('unknown');
  });
  it('grades by the worst of loss, RTT and frame rate', () => {
    expect(qualityHint({ lossPct: 0.5, rttMs: 40, fps: 30 })).toBe('good');
    expect(qualityHint({ lossPct: 3, rttMs: 40, fps: 30 })).toBe('fair');
    expect(qualityHint({ lossPct: 0, rttMs: 700, fps: 30 })).toBe('poor');
    expect(qualityHint({ lossPct: 0, rttMs: 40, fps: 5 })).toBe('poor');
  });
});
