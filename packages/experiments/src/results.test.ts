import { describe, expect, it } from 'vitest';
import { headline, overRepetitions, paperFigures, readOutcome, steadyStateBound, toCsv } from './results.js';
import type { RunOutcome } from './summary.js';

function outcome(kbps: [number, number], extra: Partial<RunOutcome> = {}): RunOutcome {
  const flow = (participant: string, meanKbps: number) => ({
    participant,
    meanKbps,
    meanReceivedKbps: meanKbps * 2,
    meanRttMs: 40,
    meanFps: 30,
    meanLossPct: 0.5,
    meanHeight: 360,
    phases: [
      { from: 0, to: 60, capKbps: null, meanKbps, settledKbps: meanKbps, utilization: null, steadyAfter: 20 },
      { from: 60, to: 120, capKbps: 1000, meanKbps: 500, settledKbps: 500, utilization: 0.5, steadyAfter: 6 },
      { from: 120, to: 180, capKbps: 500, meanKbps: 400, settledKbps: 400, utilization: 0.8, steadyAfter: 10 },
    ].map((p) => ({
      ...p,
      receivedKbps: null,
      set: { capKbps: p.capKbps, delayMs: 0, jitterMs: 0, lossPct: 0, queueMs: null },
      rampFrom: null,
      receivedFps: null,
      receivedWidth: null,
    })),
    perSecond: [],
  });
  return {
    run: {
      callId: 'c',
      startedAt: null,
      scenario: 's',
      backend: 'b',
      flows: [flow('p0', kbps[0]), flow('p1', kbps[1])],
      jain: 0.9,
      means: { rttMs: 40, lossPct: 0.5, fps: 30 },
      paper: undefined,
    },
    sharedBottleneck: null,
    ...extra,
  };
}

describe('headline', () => {
  it('averages the flows and leaves the start-up phase out of the time to steady state', () => {
    const h = headline(outcome([1000, 600]));
    expect(h.dataRateKbps).toBe(800);
    expect(h.utilization).toBeCloseTo(65);
    expect(h.steadyAfterS).toBe(8);
    // The start-up phase has a figure of its own: how long the call took to a stable rate.
    expect(h.startupS).toBe(20);
    expect(h.phaseS).toBe(60);
    expect(h.downUpRatio).toBe(2);
    expect(h.resolution).toBe(360);
    expect(h.jainCalls).toBeNull();
  });

  it("weights competing calls' figures by how long they competed, ignoring time alone", () => {
    const h = headline(
      outcome([1, 1], {
        sharedBottleneck: {
          calls: [],
          tcp: [{ label: 'tcp-1', meanKbps: 450 }],
          byCompeting: [
            { flows: 1, seconds: 100, meanJain: 1, meanTotalKbps: 2000 },
            { flows: 2, seconds: 30, meanJain: 0.9, meanTotalKbps: 900 },
            { flows: 3, seconds: 10, meanJain: 0.5, meanTotalKbps: 1000 },
          ],
        },
      }),
    );
    expect(h.jainCalls).toBeCloseTo((0.9 * 30 + 0.5 * 10) / 40);
    expect(h.totalKbps).toBeCloseTo((900 * 30 + 1000 * 10) / 40);
    expect(h.tcpKbps).toBe(450);
  });
});

describe('overRepetitions', () => {
  it('gives mean, sample standard deviation and range, skipping runs that measured nothing', () => {
    const hs = [headline(outcome([1000, 1000])), headline(outcome([800, 800])), { ...headline(outcome([0, 0])), dataRateKbps: null }];
    const s = overRepetitions(hs).dataRateKbps;
    expect(s).toEqual({ n: 2, mean: 900, sd: Math.sqrt(20_000), min: 800, max: 1000 });
    expect(overRepetitions([]).fps).toEqual({ n: 0, mean: null, sd: null, min: null, max: null });
  });
});

describe('steadyStateBound', () => {
  const figure = (value: number) => ({ metric: 'steadyAfterS', value, label: 'after the cap rose', source: '§4.2' });
  it("names the phase length when the run's phases are too short to show the paper's time", () => {
    const scaled = overRepetitions([{ ...headline(outcome([1000, 600])), phaseS: 20.4 }]);
    expect(steadyStateBound(scaled, [figure(16), figure(18)])).toBe(20.4);
    // As written (60 s phases) the paper's 16 s is well inside a phase: nothing to say.
    expect(steadyStateBound(overRepetitions([headline(outcome([1000, 600]))]), [figure(16)])).toBeNull();
    expect(steadyStateBound(scaled, [])).toBeNull();
  });
});

describe('paperFigures', () => {
  it('finds every paper value for a metric', () => {
    const paper = {
      figures: [
        { metric: 'jain', value: 0.98, label: '2 calls' },
        { metric: 'jain', value: 0.6, label: '3 calls' },
        { metric: 'rttMs', value: 30, label: 'x' },
      ],
      findings: [],
    };
    expect(paperFigures({ paper }, 'jain').map((f) => f.value)).toEqual([0.98, 0.6]);
    expect(paperFigures(null, 'jain')).toEqual([]);
  });
});

describe('toCsv', () => {
  it('writes one line per run with units in the header and quotes what needs it', () => {
    const csv = toCsv([
      { campaign: 'bw "steps", 1', run: 7, repetition: 1, status: 'done', headline: headline(outcome([1000, 600])) },
      { campaign: 'x', run: 8, repetition: 2, status: 'failed', headline: null },
    ]);
    const [header, first, second] = csv.trimEnd().split('\n');
    expect(header).toMatch(/^campaign,run,repetition,status,dataRateKbps \(kbit\/s\),utilization \(%\),/);
    expect(first).toMatch(/^"bw ""steps"", 1",7,1,done,800,65,8,60,20,2,40,30,360,0.5,0.9,,,$/);
    expect(second).toBe('x,8,2,failed,,,,,,,,,,,,,,');
  });
});

describe('readOutcome', () => {
  it("reads an outcome stored before phases carried their conditions, with the flows' means as the call's", () => {
    const stored = {
      run: {
        callId: 'c',
        scenario: 's',
        backend: 'b',
        jain: 1,
        flows: [
          {
            participant: 'p0',
            meanKbps: 500,
            meanRttMs: 20,
            meanFps: 30,
            meanLossPct: 1,
            meanHeight: 360,
            phases: [{ from: 0, to: 60, capKbps: 750, meanKbps: 500, settledKbps: 500, utilization: 0.66, steadyAfter: 5 }],
          },
        ],
      },
      sharedBottleneck: null,
    };
    const o = readOutcome(stored);
    expect(o.run.means).toEqual({ rttMs: 20, lossPct: 1, fps: 30 });
    expect(o.run.flows[0]!.perSecond).toEqual([]);
    expect(o.run.flows[0]!.phases[0]).toMatchObject({ set: { capKbps: 750 }, rampFrom: null, utilization: 0.66 });
    expect(headline(o).lossPct).toBe(1);
  });
});
