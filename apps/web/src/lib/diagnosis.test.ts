import { experienced } from '@rtcscope/diagnosis';
import type { CallIssue } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { applyDiagnosis, diagnosisFromApi, findings, headlineIssues, heardApart, issueName, scoreChart, whatLowers } from './diagnosis.js';

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

  it('says what each participant heard apart from what its conversation suffered, from its audio windows, stored and live', () => {
    // A long path: the sound is clean (4.4 heard) but 410 ms late, which a conversation pays 0.8 for.
    const data = diagnosisFromApi({
      issues: [],
      scores: {
        windowMs: 5000,
        participants: { bob: [{ ts: 0, mos: 3.6, lowers: { delay: 0.8 } }] },
        call: [],
        streams: [
          {
            streamId: 21,
            participantId: 'bob',
            kind: 'audio',
            windows: [{ ts: 0, mos: 3.6, lowers: { delay: 0.8 }, weight: 32, delayMs: 410 }],
          },
          { streamId: 20, participantId: 'bob', kind: 'video', windows: [{ ts: 0, mos: 4, lowers: {}, weight: 230 }] },
        ],
        summary: { mean: 3.6, worst: 3.6 },
      },
    });
    applyDiagnosis(data, {
      callId: 'c',
      issues: [],
      scores: [
        {
          streamId: 21,
          participantId: 'bob',
          kind: 'audio',
          ts: 5000,
          mos: 3.4,
          lowers: { delay: 0.8, loss: 0.2 },
          weight: 32,
          delayMs: 430,
        },
      ],
    });
    const [bob] = heardApart(data);
    expect(bob!.participant).toBe('bob');
    expect(bob!.listening).toBeCloseTo((4.4 + 4.2) / 2, 9);
    expect(bob!.conversation).toBeCloseTo(3.5, 9);
    expect(bob!.delayMs).toBeCloseTo(420, 9);
    // Windows scored before the delay was kept: the same scores, no delay to say.
    expect(heardApart({ ...data, heard: data.heard.map(({ delayMs: _, ...w }) => w) })[0]!.delayMs).toBeNull();
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
