import type { CallIssue } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { applyDiagnosis, diagnosisFromApi, headlineIssues, issueName, scoreChart } from './diagnosis.js';

const issue = (id: number, severity: CallIssue['severity'], start: number, end: number | null): CallIssue => ({
  id,
  callId: 'c',
  type: 'downlink-loss',
  category: 'network',
  severity,
  participantId: 'bob',
  streamId: 20,
  connectionId: 2,
  direction: 'in',
  start,
  end,
  cause: 'x',
  evidence: {},
  check: 'y',
});

describe('call page diagnosis', () => {
  it("draws each participant's score per window and takes live changes", () => {
    const data = diagnosisFromApi({ issues: [issue(1, 'warning', 0, null)], scores: { windowMs: 5000, participants: { bob: [{ ts: 0, mos: 4.2 }] }, call: [], summary: { mean: 4.2, worst: 4.2 } } });
    applyDiagnosis(data, {
      callId: 'c',
      issues: [issue(1, 'critical', 0, 9000)],
      scores: [
        { streamId: 20, participantId: 'bob', kind: 'video', ts: 5000, mos: 3.9 },
        { streamId: 21, participantId: 'bob', kind: 'audio', ts: 5000, mos: 2.5 },
      ],
    });
    expect(data.issues.get(1)).toMatchObject({ severity: 'critical', end: 9000 });
    expect(scoreChart(data).rows).toEqual([
      { ts: 2500, bob: 4.2 },
      { ts: 7500, bob: 2.5 },
    ]);
  });

  it('puts the worst and longest issues first, and names them', () => {
    const sorted = headlineIssues([issue(1, 'warning', 0, 100_000), issue(2, 'critical', 0, 1000), issue(3, 'critical', 0, null)], 50_000);
    expect(sorted.map((i) => i.id)).toEqual([3, 2, 1]);
    expect(issueName('one-way-media')).toBe('One way media');
  });
});
