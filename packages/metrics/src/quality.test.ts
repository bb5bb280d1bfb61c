import { describe, expect, it } from 'vitest';
import { callVerdict, issuesVerdict } from './quality.js';

describe('callVerdict', () => {
  it('is unknown before anything was judged', () => {
    expect(callVerdict({ score: null, severities: [] })).toBe('unknown');
  });
  it('is decided by the worst issue, whatever the score', () => {
    expect(callVerdict({ score: 4.5, severities: ['info', 'critical'] })).toBe('poor');
    expect(callVerdict({ score: 4.5, severities: ['warning'] })).toBe('fair');
    expect(callVerdict({ score: null, severities: ['info'] })).toBe('good');
  });
  it('calls a clean call good at a 10-fps camera with sound (3.6), fair at a small picture without (2.7)', () => {
    expect(callVerdict({ score: 3.58, severities: [] })).toBe('good');
    expect(callVerdict({ score: 2.67, severities: [] })).toBe('fair');
  });
  it('never contradicts the score: a call scored under 2 is poor with no issue named, and no warning makes it better', () => {
    expect(callVerdict({ score: 1.15, severities: [] })).toBe('poor');
    expect(callVerdict({ score: 1.8, severities: ['warning'] })).toBe('poor');
    expect(callVerdict({ score: 2.4, severities: ['info'] })).toBe('fair');
    expect(callVerdict({ score: 4.6, severities: ['critical'] })).toBe('poor');
  });

  it("reads what the app's own limit holds back as the app's choice: fair at worst, its consequences information", () => {
    const limited = [
      { type: 'app-limit', severity: 'info' as const },
      { type: 'received-quality', severity: 'critical' as const, causeType: 'app-limit' },
    ];
    expect(issuesVerdict(1.6, limited)).toBe('fair');
    expect(issuesVerdict(4.2, limited)).toBe('good');
    expect(issuesVerdict(1.6, [{ type: 'received-quality', severity: 'critical' as const, causeType: 'uplink-congestion' }])).toBe('poor');
    expect(issuesVerdict(4.2, [...limited, { type: 'video-freeze', severity: 'critical' as const }])).toBe('poor');
  });
});
