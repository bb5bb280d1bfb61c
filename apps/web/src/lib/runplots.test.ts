import type { FlowPhase, RunOutcome } from '@rtcscope/experiments';
import type { CallDiagnosis } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { comparePlot, lossPlot, phaseJudgements, phaseRows, ratePlot, rttPlot } from './runplots.js';

const phase = (from: number, to: number, capKbps: number | null, lossPct: number, settledKbps: number, delayMs = 10): FlowPhase => ({
  from,
  to,
  capKbps,
  meanKbps: settledKbps,
  receivedKbps: settledKbps,
  settledKbps,
  utilization: capKbps ? settledKbps / capKbps : null,
  steadyAfter: 1,
  set: { capKbps, delayMs, jitterMs: 0, lossPct, queueMs: null },
  rampFrom: null,
  receivedFps: null,
  receivedWidth: null,
});

function run(
  p0: number[],
  p1: number[],
  phases: FlowPhase[],
  call: { callId: string; startedAt: number | null } = { callId: 'c', startedAt: null },
): RunOutcome {
  const flow = (participant: string, kbps: number[]) => ({
    participant,
    meanKbps: null,
    meanReceivedKbps: null,
    meanRttMs: null,
    meanFps: null,
    meanLossPct: null,
    meanHeight: null,
    phases,
    perSecond: kbps.map((k, t) => ({ t, kbps: k, receivedKbps: null, rttMs: 20 + t })),
  });
  return {
    run: {
      ...call,
      scenario: 's',
      backend: 'b',
      flows: [flow('p0', p0), flow('p1', p1)],
      jain: null,
      means: { rttMs: null, lossPct: null, fps: null },
      paper: undefined,
    },
    sharedBottleneck: null,
  };
}

const phases = [phase(0, 2, 1000, 0, 800), phase(2, 4, 500, 10, 400)];

describe('campaign plots', () => {
  it('overlay repetitions on scenario time: mean and range per participant, the cap and the paper beside', () => {
    const plot = ratePlot([run([100, 200, 300, 400], [1, 1, 1, 1], phases), run([300, 400, 500, 600], [1, 1, 1, 1], phases)], 0.5, {
      figures: [],
      findings: [],
      rates: [{ fromS: 4, toS: 8, kbps: 350, source: 'Fig. X' }],
    });
    expect(plot.participants).toEqual(['p0', 'p1']);
    expect(plot.rows.map((r) => r.t)).toEqual([0, 2, 4, 6]);
    expect(plot.rows[1]).toMatchObject({ p0: 300, 'p0 range': [200, 400], 'p0 cap': 1000, paper: null });
    expect(plot.rows[2]).toMatchObject({ p0: 400, 'p0 cap': 500, paper: 350 });
  });

  it('draw the set RTT as both paths of a pair, there and back', () => {
    const plot = rttPlot([run([1, 1], [1, 1], phases)], 1, true);
    expect(plot.rows[0]).toMatchObject({ p0: 20, set: 20 });
  });

  it('give the settled rate per set loss only when the loss changes', () => {
    expect(lossPlot([run([1], [1], phases)])).toEqual([
      { lossPct: 0, kbps: { p0: 800, p1: 800 } },
      { lossPct: 10, kbps: { p0: 400, p1: 400 } },
    ]);
    expect(lossPlot([run([1], [1], [phase(0, 4, null, 0, 800)])])).toEqual([]);
  });

  it('summarize each phase over the repetitions in scenario seconds', () => {
    const seen = (p: FlowPhase, fps: number | null, width: number | null) => ({ ...p, receivedFps: fps, receivedWidth: width });
    const rows = phaseRows(
      [
        run([1], [1], [seen(phases[0]!, 30, 1280), phases[1]!]),
        run([1], [1], [seen(phase(0, 2, 1000, 0, 600), 20, null), phase(2, 4, 500, 10, 300)]),
      ],
      0.5,
      (p) => `cap ${p.set.capKbps}`,
    );
    expect(rows[0]).toMatchObject({
      participant: 'p0',
      from: 0,
      to: 4,
      set: 'cap 1000',
      settledKbps: 700,
      utilization: 70,
      steadyAfterS: 1,
      receivedFps: 25,
      receivedWidth: 1280,
      n: 2,
    });
    expect(rows[1]).toMatchObject({ receivedFps: null, receivedWidth: null });
    expect(rows).toHaveLength(4);
  });

  it('judge each phase by the diagnosis of the same seconds in every repetition', () => {
    const t0 = 1_700_000_000_000;
    const runs = [
      run([1], [1], phases, { callId: 'a', startedAt: t0 }),
      run([1], [1], phases, { callId: 'b', startedAt: t0 + 3_600_000 }),
      run([1], [1], phases),
    ];
    // At time scale 0.5 the phases (0–4 and 4–8 scenario s) are seconds 0–2 and 2–4 of each run.
    const diagnosis = (
      start: number,
      scores: number[],
      issues: { at: number; type: string; severity: 'warning' | 'critical' }[],
    ): CallDiagnosis => ({
      issues: issues.map((i, k) => ({
        id: k,
        callId: 'x',
        type: i.type,
        category: 'network',
        severity: i.severity,
        participantId: 'p0',
        streamId: 1,
        connectionId: 1,
        direction: 'in',
        start: start + i.at * 1000,
        end: null,
        cause: '',
        evidence: {},
        check: '',
        causeId: null,
      })),
      scores: {
        windowMs: 1000,
        participants: {},
        call: scores.map((mean, k) => ({ ts: start + k * 1000, mean, worst: mean })),
        streams: [],
        summary: { mean: null, worst: null },
      },
    });
    const diagnoses = new Map([
      ['a', diagnosis(t0, [4, 4, 2, 3], [{ at: 2.5, type: 'downlink-loss', severity: 'warning' }])],
      [
        'b',
        diagnosis(
          t0 + 3_600_000,
          [4, 4.5, 3, 3],
          [
            { at: 2, type: 'downlink-loss', severity: 'critical' },
            { at: 3, type: 'high-rtt', severity: 'warning' },
            { at: 1, type: 'high-rtt', severity: 'warning' },
          ],
        ),
      ],
    ]);
    const rows = phaseRows(runs, 0.5, (p) => `cap ${p.set.capKbps}`).filter((r) => r.participant === 'p0');
    const [first, second] = phaseJudgements(rows, runs, 0.5, diagnoses);
    expect(first).toEqual({
      score: (4 + 4.25) / 2,
      issues: [{ participant: 'p0', type: 'high-rtt', severity: 'warning', runs: 1 }],
      judged: 2,
    });
    expect(second).toEqual({
      score: (2.5 + 3) / 2,
      issues: [
        { participant: 'p0', type: 'downlink-loss', severity: 'critical', runs: 2 },
        { participant: 'p0', type: 'high-rtt', severity: 'warning', runs: 1 },
      ],
      judged: 2,
    });
  });

  it('put two campaigns of different time scales on one scenario-time axis', () => {
    const rows = comparePlot({ runs: [run([100, 300], [300, 500], phases)], scale: 1 }, { runs: [run([50], [150], phases)], scale: 0.5 });
    expect(rows).toEqual([
      { t: 0, A: 200, B: 100 },
      { t: 1, A: 400 },
    ]);
  });
});
