import { describe, expect, it } from 'vitest';
import { summarizePhases } from './run-summary.js';

describe('summarizePhases', () => {
  // 0–10 s: climbs 100 → 900 then holds 800 under a 1000 cap; 10–20 s: 400 under a 500 cap.
  const points = [
    ...[100, 300, 500, 700, 800, 800, 810, 790, 800, 800].map((kbps, t) => ({ t, kbps })),
    ...[600, 450, 400, 400, 400, 400, 400, 400, 400, 400].map((kbps, k) => ({ t: 10 + k, kbps })),
  ];
  const [first, second] = summarizePhases(points, [
    { from: 0, to: 10, capKbps: 1000 },
    { from: 10, to: 20, capKbps: 500 },
  ]);

  it('gives the mean rate and the utilization of the cap', () => {
    expect(first!.meanKbps).toBeCloseTo(640, 9);
    expect(first!.utilization).toBeCloseTo(0.64, 9);
    expect(second!.utilization).toBeCloseTo(0.85, 9);
  });

  it('finds when and where the rate settled', () => {
    expect(first!.settledKbps).toBe(800);
    expect(first!.steadyAfter).toBe(3);
    expect(second!.steadyAfter).toBe(1);
  });

  it('has no utilization without a cap and no values without points', () => {
    const [open] = summarizePhases(points, [{ from: 0, to: 20, capKbps: null }]);
    expect(open!.utilization).toBeNull();
    const [empty] = summarizePhases(points, [{ from: 50, to: 60, capKbps: 100 }]);
    expect(empty).toMatchObject({ meanKbps: null, settledKbps: null, utilization: null, steadyAfter: null });
  });

  it('judges utilization by what the far end received, and never above the cap', () => {
    // The cap fell from 3000 to 250: the sender drains 900, 600, 300 into the link, which carries 250.
    const sent = [900, 600, 300, 240, 240].map((kbps, t) => ({ t, kbps }));
    const received = [250, 250, 250, 235, 235].map((kbps, t) => ({ t, kbps }));
    const [byReceived] = summarizePhases(sent, [{ from: 0, to: 5, capKbps: 250 }], received);
    expect(byReceived!.meanKbps).toBeCloseTo(456, 9);
    expect(byReceived!.receivedKbps).toBeCloseTo(244, 9);
    expect(byReceived!.utilization).toBeCloseTo(244 / 250, 9);
    const [bySent] = summarizePhases(sent, [{ from: 0, to: 5, capKbps: 250 }]);
    expect(bySent!.utilization).toBe(1);
  });
});
