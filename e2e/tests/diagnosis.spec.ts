import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  type CallDetail,
  type CallDiagnosis,
  connectionFieldIndex,
  type NotificationList,
  QUALITY_LIMITATIONS,
  type Series,
  streamFieldIndex,
  type StreamFieldName,
} from '@rtcscope/protocol';
import { launchChromium, runScenario } from '@rtcscope/lab';
import { mean } from '@rtcscope/metrics';
import { parseScenario } from '@rtcscope/scenario';
import { downlinkLossRule, startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';

/** When p0's uplink is capped, s into the call. */
const CAP_S = 35;

test("a lab call with one participant's uplink capped: the call page shows its congestion on its lane while the call runs, its receiver's symptoms under it, one alert at a time about the sender, and the score falls", async () => {
  const { server, keys } = await startProduct('diagnosis-data');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-diagnosis'));
  try {
    // One alert for the cause: a rule on what the receiver suffers pages once, about the sender.
    const rule = await downlinkLossRule({ server, keys });
    // p0 sends freely for 35 s (its encoder's ramp-up done), then through a 250 kbit/s uplink; p1's links stay open.
    const checked = parseScenario({
      id: 'one-capped-uplink',
      title: "One participant's uplink capped",
      participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
      links: { mode: 'per-participant', uplink: {}, downlink: {} },
      schedule: [{ at: CAP_S, on: 'uplink', participant: 0, set: { rateKbps: 250 } }],
      durationS: CAP_S + 50,
    });
    if (!checked.ok) throw new Error(checked.error.message);
    let callId: string | undefined;
    const run = runScenario({
      server: server.url,
      ingestKey: keys.ingestKey,
      scenario: checked.value,
      runId: 'diag',
      repetition: 1,
      progress: (p) => (callId ??= p.callId),
    });

    const page = await browser.newPage();
    await openWithKey(page, server.url, keys.apiKey);
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
    const diagnosis = (await (
      await fetch(`${server.url}/api/v1/calls/${result.callId}/diagnosis`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
    ).json()) as CallDiagnosis;
    console.log(
      diagnosis.issues
        .map(
          (i) =>
            `${i.participantId} ${i.type} ${i.severity} ${((i.start - result.startedAt) / 1000).toFixed(0)}–${i.end === null ? 'open' : ((i.end - result.startedAt) / 1000).toFixed(0)} s: ${i.cause}`,
        )
        .join('\n'),
    );
    // p1's symptoms are shown under p0's congestion, not as causes of their own. p0's congestion may be
    // told more than once (it ends while the encoder settles under the cap and comes back): p1's symptoms
    // sit under whichever of them they followed from.
    await expect(
      page
        .getByTestId('finding-uplink-congestion')
        .filter({ hasText: 'Uplink congestion for p0' })
        .getByTestId('consequences')
        .filter({ hasText: 'for p1' })
        .first(),
    ).toBeVisible({ timeout: 15_000 });
    // p0's congestion, raised after the cap, not before it; none raised on p1 (its uplink is open) from the
    // cap on. (Before the cap, on a loaded 2-core CI host, p1's own sender once backed off in its ramp-up,
    // 543 of 913 kbit/s: the lab's relay shares the CPU, and its delay is real to GCC; docs/decisions.md.)
    const capAt = result.startedAt + CAP_S * 1000;
    // What the congestion detector reads, said where an expectation on it fails: p0's sent video and its
    // connection, second by second around the cap.
    const api = async <T>(path: string) =>
      (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as T;
    const [detail, series] = await Promise.all([
      api<CallDetail>(`/calls/${result.callId}`),
      api<Series>(`/calls/${result.callId}/series?maxPoints=10000`),
    ]);
    const p0Connection = detail.participants.find((p) => p.id === 'p0')!.connections[0]!;
    const p0Video = p0Connection.streams.find((s) => s.kind === 'video' && s.direction === 'out')!.id;
    const second = (ts: number) => Math.round((ts - result.startedAt) / 1000);
    const estimates = new Map(series.connections.filter((pt) => pt.id === p0Connection.id).map((pt) => [second(pt.ts), pt.v]));
    const p0Seconds = series.streams
      .filter((pt) => pt.id === p0Video && pt.ts >= capAt - 3000 && pt.ts <= capAt + 10_000)
      .map((pt) => {
        const c = estimates.get(second(pt.ts));
        const [rtt, loss, limit] = ['rttMs', 'lossPct', 'qualityLimitation'].map((f) => pt.v[streamFieldIndex(f as StreamFieldName)]);
        const reason = limit === null || limit === undefined ? '?' : QUALITY_LIMITATIONS[limit];
        return `${second(pt.ts)} s: RTT ${rtt} ms, far end lost ${loss} %, limited by ${reason}, sent ${c?.[connectionFieldIndex('sentKbps')]} of an estimated ${c?.[connectionFieldIndex('availableOutKbps')]} kbit/s`;
      })
      .join('\n');
    const read = `p0's sent video:\n${p0Seconds}`;
    const congestion = diagnosis.issues.filter((i) => i.type === 'uplink-congestion' && i.participantId === 'p0');
    expect(congestion.length, read).toBeGreaterThan(0);
    expect(Math.min(...congestion.map((i) => i.start)), read).toBeGreaterThan(capAt - 2500);
    expect(diagnosis.issues.filter((i) => i.type === 'uplink-congestion' && i.participantId === 'p1' && i.start >= capAt)).toEqual([]);
    // What p1 suffered after the cap follows from it: linked in the API, blaming no network of p1's.
    const ids = new Set(congestion.map((i) => i.id));
    const suffered = diagnosis.issues.filter((i) => i.participantId === 'p1' && i.start >= capAt);
    expect(suffered.length).toBeGreaterThan(0);
    expect(
      suffered.filter((i) => i.causeId === null || !ids.has(i.causeId)).map((i) => i.type),
      read,
    ).toEqual([]);
    expect(suffered.every((i) => i.check.startsWith("It follows from p0's uplink-congestion"))).toBe(true);
    // One alert: it fired once, and ends (the call ended) as p0's congestion.
    const notified = async () =>
      (
        (await (
          await fetch(`${server.url}/api/v1/alerts/notifications`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
        ).json()) as NotificationList
      ).notifications.filter((n) => n.rule.id === rule.id);
    await expect.poll(async () => (await notified()).some((n) => n.state !== 'firing'), { timeout: 60_000 }).toBe(true);
    const notifications = await notified();
    console.log(notifications.map((n) => `${n.state} ${n.alert.participantId}: ${n.alert.summary}`).join('\n'));
    // One page, carried on to the sender once the link is known: a receiver's loss that stops while the
    // sender's encoder settles under the cap and comes back 10 s later (a CI run: p1's loss 35–46 s) once
    // resolved the alert and paged again; a rule resolves only once clear for its 30 s. It says what the
    // rule is about first, then the cause: p0's congestion.
    const inTurn = [...notifications].sort((a, b) => a.at - b.at).map((n) => (n.state === 'firing' ? 'firing' : 'over'));
    expect(inTurn).toEqual(['firing', 'over']);
    for (const over of notifications.filter((n) => n.state !== 'firing'))
      expect(over.alert, read).toMatchObject({
        participantId: 'p0',
        summary: expect.stringMatching(/^downlink-loss .*; it follows from uplink-congestion \(\w+\) on p0: /),
      });
    // What p1 receives from the capped sender scores lower after the cap than before it (means over windows).
    const p1 = diagnosis.scores.participants.p1!;
    const before = mean(p1.filter((w) => w.ts >= capAt - 15_000 && w.ts + 5000 <= capAt).map((w) => w.mos))!;
    const after = mean(p1.filter((w) => w.ts >= capAt + 15_000).map((w) => w.mos))!;
    console.log(`p1's score: ${before.toFixed(2)} before the cap, ${after.toFixed(2)} after`);
    expect(after).toBeLessThan(before);
  } finally {
    await browser.close();
    await server.stop();
  }
});
