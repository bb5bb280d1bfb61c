import { describe, expect, it } from 'vitest';
import { CONDITION_KINDS, defaultCondition, describeCondition, ISSUE_TYPES } from './alerts.js';

describe('alert conditions in words', () => {
  it('say each kind with its numbers and units', () => {
    expect(describeCondition({ kind: 'call-score', below: 2.5, forS: 20 })).toBe('a participant scores under 2.5 for 20 s');
    expect(describeCondition({ kind: 'fleet-issue-share', issueType: 'high-rtt', abovePct: 15, minCalls: 8 })).toBe(
      "over 15 % of the last 15 minutes' calls have high rtt (at least 8 calls)",
    );
    expect(describeCondition({ kind: 'call-issue', issueType: 'downlink-loss' })).toBe('a live call raises downlink loss');
  });

  it('start every kind from a condition that names a real issue type', () => {
    for (const kind of Object.keys(CONDITION_KINDS) as (keyof typeof CONDITION_KINDS)[]) {
      const c = defaultCondition(kind);
      expect(c.kind).toBe(kind);
      if ('issueType' in c) expect(ISSUE_TYPES).toContain(c.issueType);
    }
  });
});
