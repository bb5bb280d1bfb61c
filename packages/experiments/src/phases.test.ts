import { compileTimeline, findScenario, type LinkState, type Scenario } from '@rtcscope/scenario';
import { describe, expect, it } from 'vitest';
import { describeConditions, pathConditions, pathPhases } from './phases.js';
import type { AppliedChange } from './wire.js';

/** What an agent applies for a scenario: its timeline, each change a few ms late, links one after another. */
function applied(s: Scenario): AppliedChange[] {
  return compileTimeline(s).points.map((p, k) => ({ t: p.t + 0.002 * (k % 3), link: p.link, state: p.state }));
}

const scaled = (id: string, timeScale = 1): Scenario => ({ ...findScenario(id)!, timeScale });

describe('path phases', () => {
  it('cut a static-loss run at every loss level, not into one phase', () => {
    const s = scaled('static-loss');
    const phases = pathPhases(applied(s), s, 0, 600);
    expect(phases.map((p) => [Math.round(p.from), p.set.lossPct])).toEqual([
      [0, 0],
      [120, 1],
      [240, 5],
      [360, 10],
      [480, 20],
    ]);
    expect(phases.map((p) => describeConditions(p.set))).toContain('no cap, loss 5 %');
  });

  it('make one phase of changes applied at the same instant, and judge a sender by its own path', () => {
    const s = scaled('handoff');
    const [p0, p1] = [pathPhases(applied(s), s, 0, 300), pathPhases(applied(s), s, 1, 300)];
    expect(p0.every((p) => p.to - p.from >= 59)).toBe(true);
    // p0 sends over its uplink and p1's downlink: the narrower of the two caps it.
    expect(p0.map((p) => p.set.capKbps)).toEqual([3000, 250, 100, 500, 250]);
    expect(p1.map((p) => p.set.capKbps)).toEqual([3000, 250, 100, 500, 250]);
    expect(p0[1]!.set.delayMs).toBe(100);
  });

  it('draw a ramp as one phase and the hold after it as another', () => {
    const s = scaled('latency-ramps');
    const phases = pathPhases(applied(s), s, 0, 300);
    expect(phases[0]).toMatchObject({ from: 0, rampFrom: { delayMs: 0 }, set: { delayMs: 250 } });
    expect(phases[0]!.to).toBeCloseTo(60, 1);
    expect(phases[1]).toMatchObject({ rampFrom: null, set: { delayMs: 250 } });
    expect(phases[1]!.to).toBeCloseTo(120, 1);
    expect(phases.filter((p) => p.rampFrom)).toHaveLength(2);
  });

  it('start with an open path when nothing was applied at the start', () => {
    const s = scaled('static-bw');
    const state = (rateKbps: number | null): LinkState => ({
      rateKbps,
      delayMs: 0,
      jitterMs: 0,
      loss: { model: 'random', pct: 0 },
      queueMs: null,
    });
    const phases = pathPhases([{ t: 10, link: 'p0-up', state: state(1000) }], s, 0, 20);
    expect(phases.map((p) => [p.from, p.to, p.set.capKbps])).toEqual([
      [0, 10, null],
      [10, 20, 1000],
    ]);
    expect(pathPhases([], s, 0, 20)).toEqual([{ from: 0, to: 20, set: expect.objectContaining({ capKbps: null }), rampFrom: null }]);
  });

  it('combine random loss over links and leave bursty loss unnamed', () => {
    const link = (pct: number): LinkState => ({ rateKbps: null, delayMs: 10, jitterMs: 0, loss: { model: 'random', pct }, queueMs: null });
    expect(pathConditions([link(10), link(10)])).toMatchObject({ lossPct: 19, delayMs: 20 });
    expect(
      pathConditions([link(0), { ...link(0), loss: { model: 'gilbert-elliott', p: 0.1, r: 0.5, badPct: 100, goodPct: 0 } }]).lossPct,
    ).toBeNull();
  });
});
