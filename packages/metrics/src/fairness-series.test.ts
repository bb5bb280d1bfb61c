import { describe, expect, it } from 'vitest';
import { fairnessOverTime } from './fairness-series.js';

describe('fairnessOverTime', () => {
  it("sums a participant's streams and computes J per interval and direction", () => {
    const series = fairnessOverTime([
      { ts: 2000, participant: 'a', direction: 'out', kbps: 1000 },
      { ts: 1000, participant: 'a', direction: 'out', kbps: 900 },
      { ts: 1000, participant: 'a', direction: 'out', kbps: 100 },
      { ts: 1000, participant: 'b', direction: 'out', kbps: 1000 },
      { ts: 1000, participant: 'a', direction: 'in', kbps: 1408 },
      { ts: 1000, participant: 'b', direction: 'in', kbps: 451 },
      { ts: 2000, participant: 'b', direction: 'out', kbps: 0 },
    ]);
    expect(series.map((p) => p.ts)).toEqual([1000, 2000]);
    expect(series[0]?.sendKbps).toEqual({ a: 1000, b: 1000 });
    expect(series[0]?.send).toBeCloseTo(1, 12);
    expect(series[0]?.receive).toBeCloseTo(0.7905, 3);
    expect(series[1]?.send).toBeCloseTo(0.5, 12);
    expect(series[1]?.receive).toBeNull();
  });
});
