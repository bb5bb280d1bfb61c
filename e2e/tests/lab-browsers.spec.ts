import { expect, test } from '@playwright/test';
import { runScenario } from '@rtcscope/lab';
import type { CallDetail, CallDiagnosis, Series } from '@rtcscope/protocol';
import { parseScenario } from '@rtcscope/scenario';
import { summarizeRun } from '@rtcscope/experiments';
import { apiReader, startProduct } from '../support/product.js';

const LOSS_FROM_S = 30;

test('a lab call between Firefox and Chromium on one schedule: both send the drawn picture within the cap, and the same loss on both gives the same issue and close scores', async () => {
  const { server, keys } = await startProduct('lab-browsers', { CALL_IDLE_TIMEOUT_S: '60' });
  try {
    const open = { rateKbps: 1000, delayMs: 10, loss: { model: 'random', pct: 0 } };
    const checked = parseScenario({
      id: 'browsers-e2e',
      title: 'Firefox and Chromium under the same cap, then the same loss',
      participants: {
        count: 2,
        topology: 'pair',
        codec: 'VP8',
        video: { width: 640, height: 360, fps: 30, source: 'canvas' },
        browsers: ['firefox', 'chromium'],
      },
      links: { mode: 'per-participant', uplink: open, downlink: open },
      // Each receives with 10 % of its packets lost, from the same moment.
      schedule: [{ at: LOSS_FROM_S, on: 'downlink', set: { loss: { model: 'random', pct: 10 } } }],
      // 50 s of loss: about nine 5-s windows for each mean score (with five, one odd window moved a mean by 0.2).
      durationS: 80,
    });
    if (!checked.ok) throw new Error(`${checked.error.field}: ${checked.error.message}`);
    const scenario = checked.value;
    const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario, runId: 'e2e', repetition: 1 });

    const get = apiReader({ server, keys });
    const detail = await get<CallDetail>(`/calls/${run.callId}`);
    expect(Object.fromEntries(detail.participants.map((p) => [p.id, p.metadata.browser]))).toEqual({ p0: 'firefox', p1: 'chromium' });

    // Before the loss: each browser's sent rate, settled under the 1000 kbit/s cap; Firefox's fake camera
    // alone would stay near 260 kbit/s, the drawn picture takes it past that.
    const summary = summarizeRun(run, scenario, detail, await get<Series>(`/calls/${run.callId}/series?maxPoints=10000`));
    const capped = Object.fromEntries(summary.flows.map((f) => [f.participant, f.phases[0]!.settledKbps!]));
    console.log(`settled under 1000 kbit/s: Firefox ${capped.p0!.toFixed(0)}, Chromium ${capped.p1!.toFixed(0)} kbit/s`);
    for (const kbps of Object.values(capped)) {
      expect(kbps).toBeGreaterThan(400);
      expect(kbps).toBeLessThan(1000 * 1.1);
    }

    // The same loss on both: the same issue, each on its own participant, and close scores.
    const diagnosis = await get<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
    const lossStart = run.startedAt + LOSS_FROM_S * 1000;
    const issues = (p: string) =>
      new Set(diagnosis.issues.filter((i) => i.participantId === p && i.start >= lossStart - 2000).map((i) => i.type));
    console.log(`issues after the loss began: Firefox ${[...issues('p0')].join(', ')}; Chromium ${[...issues('p1')].join(', ')}`);
    expect(issues('p0')).toContain('downlink-loss');
    expect(issues('p1')).toContain('downlink-loss');
    expect(issues('p0').has('audio-concealment')).toBe(issues('p1').has('audio-concealment'));
    const mean = (windows: { mos: number }[]) => windows.reduce((sum, w) => sum + w.mos, 0) / windows.length;
    const inRange = <W extends { ts: number }>(windows: W[], from: number, to: number) =>
      windows.filter((w) => w.ts >= from && w.ts + diagnosis.scores.windowMs <= to);
    const [under, before] = [
      <W extends { ts: number }>(windows: W[]) => inRange(windows, lossStart + 5000, run.endedAt - 2000),
      <W extends { ts: number }>(windows: W[]) => inRange(windows, lossStart - 15_000, lossStart),
    ];
    const participant = (p: string) => diagnosis.scores.participants[p]!;
    const heard = (p: string) => diagnosis.scores.streams.find((st) => st.participantId === p && st.kind === 'audio')!.windows;
    console.log(
      `scores under loss: Firefox ${mean(under(participant('p0'))).toFixed(2)} (${mean(before(participant('p0'))).toFixed(2)} before), Chromium ${mean(under(participant('p1'))).toFixed(2)} (${mean(before(participant('p1'))).toFixed(2)} before); audio ${mean(under(heard('p0'))).toFixed(2)} and ${mean(under(heard('p1'))).toFixed(2)} (${mean(before(heard('p0'))).toFixed(2)} and ${mean(before(heard('p1'))).toFixed(2)} before)`,
    );
    // Both hear the loss (the picture, its loss repaired by retransmission on this short path, barely
    // changes: docs/scores.md), and both score alike: four runs spread 0.08–0.50 apart, the wider when
    // Firefox's video froze under the loss (a real difference between the browsers, which the score should show).
    for (const p of ['p0', 'p1']) expect(mean(under(heard(p)))).toBeLessThan(mean(before(heard(p))) - 0.5);
    expect(Math.abs(mean(under(participant('p0'))) - mean(under(participant('p1'))))).toBeLessThanOrEqual(0.6);
  } finally {
    await server.stop();
  }
});
