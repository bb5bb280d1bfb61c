import { expect, test } from '@playwright/test';
import { summarizeSharedBottleneck } from '@rtcscope/experiments';
import { runScenario } from '@rtcscope/lab';
import type { CallDetail, Series } from '@rtcscope/protocol';
import { findScenario, parseScenario } from '@rtcscope/scenario';
import { apiReader, startProduct } from '../support/product.js';

test("two calls on one capped bottleneck: their summed rate stays under the cap and Jain's index is reported", async () => {
  const { server, keys } = await startProduct('lab-fairness-data');
  try {
    // rtp-fairness with one extra call and a cap two 640x360 calls really contend for.
    const base = findScenario('rtp-fairness')!;
    const checked = parseScenario({
      ...base,
      participants: { ...base.participants, video: { width: 640, height: 360, fps: 30 } },
      links: { mode: 'shared', bottleneck: { rateKbps: 1000, delayMs: 0 } },
      crossTraffic: [{ kind: 'call', at: 20 }],
      durationS: 80,
    });
    if (!checked.ok) throw new Error(`${checked.error.field}: ${checked.error.message}`);
    const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario: checked.value, runId: 'e2e', repetition: 1 });
    expect(run.calls).toHaveLength(2);

    const get = apiReader({ server, keys });
    const perCall = await Promise.all(
      run.calls.map(async (c) => ({
        callId: c.callId,
        detail: await get<CallDetail>(`/calls/${c.callId}`),
        series: await get<Series>(`/calls/${c.callId}/series?maxPoints=10000`),
      })),
    );
    const summary = summarizeSharedBottleneck(run, perCall);
    console.log(JSON.stringify(summary.byCompeting));
    const both = summary.byCompeting.find((g) => g.flows === 2)!;
    expect(both.seconds).toBeGreaterThan(30);
    expect(both.meanTotalKbps!).toBeLessThan(1000);
    expect(both.meanJain!).toBeGreaterThan(0.5);
    expect(both.meanJain!).toBeLessThanOrEqual(1);
  } finally {
    await server.stop();
  }
});

test('a call against a TCP bulk flow on one kernel-shaped bottleneck: both get a share, and fairness is reported', async () => {
  const { server, keys } = await startProduct('lab-tcp-data');
  try {
    const base = findScenario('tcp-fairness')!;
    const checked = parseScenario({
      ...base,
      participants: { ...base.participants, video: { width: 640, height: 360, fps: 30 } },
      timeScale: 0.1,
    });
    if (!checked.ok) throw new Error(`${checked.error.field}: ${checked.error.message}`);
    const run = await runScenario({
      server: server.url,
      ingestKey: keys.ingestKey,
      scenario: checked.value,
      runId: 'e2e-tcp',
      repetition: 1,
    });
    expect(run.backend).toBe('kernel rate (tbf) + user-space delay and loss');
    expect(run.tcpFlows).toHaveLength(1);

    const get = apiReader({ server, keys });
    const detail = await get<CallDetail>(`/calls/${run.callId}`);
    const series = await get<Series>(`/calls/${run.callId}/series?maxPoints=10000`);
    const summary = summarizeSharedBottleneck(run, [{ callId: run.callId, detail, series }]);
    console.log(JSON.stringify({ call: summary.calls[0]?.meanKbps, tcp: summary.tcp[0]?.meanKbps, competing: summary.byCompeting }));
    const both = summary.byCompeting.find((g) => g.flows === 2)!;
    expect(both.seconds).toBeGreaterThan(40);
    // The bottleneck is 2000 kbit/s; TCP goodput excludes its headers, the call's rate includes RTP's.
    expect(both.meanTotalKbps!).toBeLessThan(2000 * 1.05);
    expect(summary.tcp[0]!.meanKbps!).toBeGreaterThan(200);
    expect(summary.calls[0]!.meanKbps!).toBeGreaterThan(200);
    expect(both.meanJain!).toBeGreaterThan(0.5);
    expect(both.meanJain!).toBeLessThanOrEqual(1);
  } finally {
    await server.stop();
  }
});
