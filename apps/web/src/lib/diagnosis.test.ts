import { experienced } from '@rtcscope/diagnosis';
import type { CallIssue } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { applyDiagnosis, diagnosisFromApi, findings, headlineIssues, issueName, scoreChart, whatLowers } from './diagnosis.js';

const issue = (
  id: number,
  severity: CallIssue['severity'],
  start: number,
  end: number | null,
  causeId: number | null = null,
  type = 'downlink-loss',
): CallIssue => ({
  id,
  callId: 'c',
  type,
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
  causeId,
});

describe('call page diagnosis', () => {
  it("draws each participant's score per window and takes live changes", () => {
    const data = diagnosisFromApi({
      issues: [issue(1, 'warning', 0, null)],
      scores: {
        windowMs: 5000,
        participants: { bob: [{ ts: 0, mos: 4.2, lowers: { frameRate: 0.5 } }] },
        call: [],
        streams: [],
        summary: { mean: 4.2, worst: 4.2 },
      },
    });
    applyDiagnosis(data, {
      callId: 'c',
      issues: [issue(1, 'critical', 0, 9000)],
      scores: [
        { streamId: 20, participantId: 'bob', kind: 'video', ts: 5000, mos: 3.9, lowers: { frameRate: 0.6 }, weight: 230 },
        { streamId: 21, participantId: 'bob', kind: 'audio', ts: 5000, mos: 2.5, lowers: { loss: 1.8, delay: 0.05 }, weight: 32 },
      ],
    });
    expect(data.issues.get(1)).toMatchObject({ severity: 'critical', end: 9000 });
    expect(scoreChart(data).rows).toEqual([
      { ts: 2500, bob: 4.2 },
      // What bob heard and saw: the lossy sound pulls the picture's 3.9 down.
      { ts: 7500, bob: experienced(2.5, 3.9) },
    ]);
    // What lowers bob's score, by the mean over his windows of what each factor took (from his lowest stream's): loss, then frame rate.
    expect(whatLowers(data)).toEqual([
      {
        participant: 'bob',
        windows: 2,
        factors: [
          ['loss', 0.9],
          ['frameRate', 0.25],
        ],
      },
    ]);
  });

  it('puts the worst and longest issues first, and names them', () => {
    const sorted = headlineIssues([issue(1, 'warning', 0, 100_000), issue(2, 'critical', 0, 1000), issue(3, 'critical', 0, null)], 50_000);
    expect(sorted.map((i) => i.id)).toEqual([3, 2, 1]);
    expect(issueName('one-way-media')).toBe('One way media');
    expect(['cpu-limitation', 'high-rtt', 'sfu-path', 'ice-failure'].map(issueName)).toEqual([
      'CPU limitation',
      'High RTT',
      'SFU path',
      'ICE failure',
    ]);
  });

  it('shows each cause with what follows from it under it, ranked by the worst of them', () => {
    const list = findings(
      [
        issue(1, 'warning', 0, null, null, 'high-rtt'),
        issue(2, 'warning', 5000, null, null, 'uplink-congestion'),
        issue(3, 'critical', 3000, null, 2),
        issue(4, 'warning', 4000, null, 2, 'high-jitter'),
      ],
      60_000,
    );
    expect(list.map((f) => [f.issue.id, f.consequences.map((c) => c.id)])).toEqual([
      [2, [3, 4]],
      [1, []],
    ]);
    // A consequence whose cause is not in the list (an older page's issues) stands on its own.
    expect(findings([issue(3, 'critical', 3000, null, 2)], 60_000).map((f) => f.issue.id)).toEqual([3]);
  });
});
