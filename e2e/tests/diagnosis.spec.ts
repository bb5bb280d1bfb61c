import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CallDiagnosis } from '@rtcscope/protocol';
import { launchChromium, runScenario } from '@rtcscope/lab';
import { parseScenario } from '@rtcscope/scenario';
import { startProduct } from '../support/product.js';

test("a lab call with one participant's uplink capped: the call page shows its congestion on its lane while the call runs, and the score falls", async () => {
  const { server, keys } = await startProduct('diagnosis-data');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-diagnosis'));
  try {
    // p0 sends freely for 25 s, then through a 250 kbit/s uplink; p1's links stay open.
    const checked = parseScenario({
      id: 'one-capped-uplink',
      title: "One participant's uplink capped",
      participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
      links: { mode: 'per-participant', uplink: {}, downlink: {} },
      schedule: [{ at: 25, on: 'uplink', participant: 0, set: { rateKbps: 250 } }],
      durationS: 75,
    });
    if (!checked.ok) throw new Error(checked.error.message);
    let callId: string | undefined;
    const run = runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario: checked.value, runId: 'diag', repetition: 1, progress: (p) => (callId ??= p.callId) });

    const page = await browser.newPage();
    await page.goto(`${server.url}/#key=${keys.apiKey}`);
    await expect.poll(() => callId, { timeout: 60_000 }).toBeTruthy();
    await page.goto(`${server.url}/calls/${callId}`);
    await expect(page.getByTestId('call-state')).toHaveText('live');
    // While the call runs, the congested sender's lane shows it (pushed live: the page is not reloaded).
    await expect(page.getByTestId('lane-p0').getByTestId('issue-uplink-congestion')).toBeVisible({ timeout: 45_000 });
    expect(await page.getByTestId('call-state').textContent()).toBe('live');
    await expect(page.getByTestId('diagnosis-summary')).toContainText('Uplink congestion for p0');
    const shot = test.info().outputPath('call-page-diagnosis.png');
    await page.screenshot({ path: shot, fullPage: true });
    await test.info().attach('call page with an issue', { path: shot, contentType: 'image/png' });

    // Clicking it zooms the charts to it.
    await page.getByTestId('lane-p0').getByTestId('issue-uplink-congestion').first().click();
    await expect(page.getByTestId('zoomed')).toContainText('uplink-congestion of p0');

    const result = await run;
    const diagnosis = (await (await fetch(`${server.url}/api/v1/calls/${result.callId}/diagnosis`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as CallDiagnosis;
    console.log(diagnosis.issues.map((i) => `${i.participantId} ${i.type} ${i.severity} ${((i.start - result.startedAt) / 1000).toFixed(0)}–${i.end === null ? 'open' : ((i.end - result.startedAt) / 1000).toFixed(0)} s: ${i.cause}`).join('\n'));
    const congestion = diagnosis.issues.filter((i) => i.type === 'uplink-congestion');
    expect(congestion.map((i) => i.participantId)).toEqual(congestion.map(() => 'p0'));
    expect(congestion.length).toBeGreaterThan(0);
    // Raised after the cap, not before it.
    expect(Math.min(...congestion.map((i) => i.start))).toBeGreaterThan(result.startedAt + 25_000 * 0.9);
    // What p1 receives from the capped sender scores lower after the cap than before it (means over windows).
    const p1 = diagnosis.scores.participants.p1!;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const before = mean(p1.filter((w) => w.ts >= result.startedAt + 10_000 && w.ts + 5000 <= result.startedAt + 25_000).map((w) => w.mos));
    const after = mean(p1.filter((w) => w.ts >= result.startedAt + 40_000).map((w) => w.mos));
    console.log(`p1's score: ${before.toFixed(2)} before the cap, ${after.toFixed(2)} after`);
    expect(after).toBeLessThan(before);
  } finally {
    await browser.close();
    await server.stop();
  }
});
