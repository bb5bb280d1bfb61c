import { describe, expect, it } from 'vitest';
import { callVerdict } from './quality.js';

describe('callVerdict', () => {
  it('is unknown before anything was judged', () => {
    expect(callVerdict({ score: null, severities: [] })).toBe('unknown');
  });
  it('is decided by the worst issue, whatever the score', () => {
    expect(callVerdict({ score: 4.5, severities: ['info', 'critical'] })).toBe('poor');
    expect(callVerdict({ score: 4.5, severities: ['warning'] })).toBe('fair');
    expect(callVerdict({ score: null, severities: ['info'] })).toBe('good');
  });
  it('calls a clean call good at any source: a 10-fps camera scores 3.3, a 180p one at 10 fps 2.7', () => {
    expect(callVerdict({ score: 3.29, severities: [] })).toBe('good');
    expect(callVerdict({ score: 2.67, severities: [] })).toBe('good');
    expect(callVerdict({ score: 1.8, severities: [] })).toBe('fair');
  });
});
