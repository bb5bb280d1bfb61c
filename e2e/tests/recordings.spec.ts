import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  connectPeers,
  launchChromium,
  loopbackContext,
  openPeer,
  peerContext,
  rtcstatsClientBundle,
  rtcstatsCollector,
  rtcstatsUntil,
  truth,
} from '@rtcscope/lab';
import type { CallDetail, CallDiagnosis, RecordingImported } from '@rtcscope/protocol';
import { webrtcInternalsDump } from '@rtcscope/server/testing';
import { expectAgreement } from '../support/agreement.js';
import { storedRows } from '../support/db.js';
import { webrtcInternalsUntil } from '../support/recorded-until.js';
import { startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';

const dir = () => process.env.E2E_DIR!;

test("a dump from Chromium's own webrtc-internals page, imported through the dashboard, agrees with getStats", async () => {
  const product = await startProduct('recordings-internals', { CALL_IDLE_TIMEOUT_S: '60' });
  // Alice's browser holds only her side of the call, so its webrtc-internals page records her alone.
  const aliceBrowser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-internals-a'));
  const bobBrowser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-internals-b'));
  try {
    const internals = await (await aliceBrowser.newContext({ acceptDownloads: true })).newPage();
    await internals.goto('chrome://webrtc-internals');
    const peer = { server: product.server.url, ingestKey: product.keys.ingestKey, callId: 'recorded-live' };
    const alice = await (await peerContext(aliceBrowser)).newPage();
    const bob = await (await peerContext(bobBrowser)).newPage();
    await openPeer(alice, { ...peer, participantId: 'alice' });
    await openPeer(bob, { ...peer, participantId: 'bob' });
    await connectPeers(alice, bob);
    await alice.waitForTimeout(12_000);
    const a1 = await truth(alice);
    await alice.waitForTimeout(10_000);
    const a2 = await truth(alice);

    // The page records once a second: dumped again until the dump covers the compared window's end.
    await internals.getByText('Create a WebRTC-Internals dump').click();
    const file = join(dir(), 'webrtc_internals_dump.txt');
    await expect(async () => {
      const download = internals.waitForEvent('download', { timeout: 5_000 });
      await internals.getByRole('button', { name: /webrtc-internals dump/i }).click();
      await (await download).saveAs(file);
      expect(webrtcInternalsUntil(readFileSync(file))).toBeGreaterThan(a2.wallclock + 500);
    }).toPass({ timeout: 15_000 });

    const dashboard = await (await loopbackContext(bobBrowser)).newPage();
    await openWithKey(dashboard, product.server.url, product.keys.apiKey);
    await dashboard.getByTestId('toggle-import').click();
    await dashboard.getByTestId('recording-file').setInputFiles(file);
    const result = dashboard.getByTestId('import-result');
    await expect(result).toContainText(
      /Imported webrtc_internals_dump\.txt \(webrtc-internals, Chrome( Headless)? \d+, \d+ samples\) as call rec-/,
    );
    const row = dashboard.locator('[data-testid^="call-row-rec-"]');
    await expect(row.getByTestId('imported-badge')).toBeVisible();
    await result.getByRole('link').click();
    await expect(dashboard.getByTestId('imported-from')).toContainText('from webrtc-internals file webrtc_internals_dump.txt');
    await expect(dashboard.getByTestId('call-state')).toHaveText('ended');
    const callId = await dashboard.getByTestId('call-title').innerText();

    // The call goes out again as an rtcstats dump, from its page.
    const [exported] = await Promise.all([dashboard.waitForEvent('download'), dashboard.getByTestId('export-rtcstats').click()]);
    expect(exported.suggestedFilename()).toBe(`call-${callId}.rtcstats`);
    const dumpLines = readFileSync(await exported.path(), 'utf8').split('\n');
    expect(dumpLines.slice(0, 2)).toEqual(['RTCStatsDump', expect.stringContaining('"fileFormat":3')]);
    expect(dumpLines.filter((l) => l.startsWith('["getStats",')).length).toBeGreaterThan(20);

    const rows = await storedRows(product.env.DATABASE_URL, callId);
    const recorded = rows[0]!.participant;
    expectAgreement('webrtc-internals dump', rows, { participant: recorded, t1: a1, t2: a2 }, { participant: recorded, t1: a1, t2: a2 });

    // The imported call counts in the insights of imported recordings once its summary is written (10 s
    // after its end), broken down by a metadata key: the recording's format (the live call's participants
    // have none). The live fleet's insights leave it out.
    await dashboard.goto(`${product.server.url}/insights`);
    await expect(async () => {
      await dashboard.reload();
      await dashboard.getByLabel('Calls from').selectOption('imported');
      await dashboard.getByTestId('breakdown').selectOption('metadata');
      await dashboard.getByLabel('Metadata key', { exact: true }).fill('recordingFormat');
      const row = dashboard.getByTestId('insights-row').filter({ hasText: 'webrtc-internals' }).locator('td');
      await expect(row.nth(0)).toHaveText('webrtc-internals', { timeout: 2_000 });
      await expect(row.nth(2)).toHaveText('1');
    }).toPass({ timeout: 75_000 });
    // Its segment opens the calls behind it: the imported call, not the live one it was recorded from.
    await dashboard
      .getByTestId('insights-row')
      .filter({ hasText: 'webrtc-internals' })
      .getByRole('link', { name: 'webrtc-internals' })
      .click();
    await expect(dashboard.getByTestId('drill-down')).toContainText('whose metadata recordingFormat is webrtc-internals');
    await expect(dashboard.locator('[data-testid^="call-row-"]')).toHaveCount(1);
    await expect(dashboard.getByTestId(`call-row-${callId}`)).toBeVisible();

    // The same file again is the same call.
    await dashboard.goto(`${product.server.url}/`);
    await dashboard.getByTestId('toggle-import').click();
    await dashboard.getByTestId('recording-file').setInputFiles(file);
    await expect(dashboard.getByTestId('import-result')).toContainText(`webrtc_internals_dump.txt was imported before, as call ${callId}`);
  } finally {
    await aliceBrowser.close();
    await bobBrowser.close();
    await product.server.stop();
  }
});

test('an rtcstats file written from the real @jitsi/rtcstats client, imported through the API, agrees with getStats', async () => {
  const product = await startProduct('recordings-rtcstats', { CALL_IDLE_TIMEOUT_S: '60' });
  const browser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-rtcstats'));
  const collector = await rtcstatsCollector();
  try {
    const page = await (await peerContext(browser)).newPage();
    await page.goto(`${product.server.url}/healthz`);
    await page.setContent('<!doctype html><title>rtcstats</title><body></body>');
    await page.addScriptTag({ content: await rtcstatsClientBundle() });
    // A call within the page: the sender's and the receiver's connection both wrapped by rtcstats.
    await page.evaluate(async (endpoint) => {
      const w = window as unknown as { startRtcstats(e: string): void; lab: { pcs: Record<string, RTCPeerConnection> } };
      w.startRtcstats(endpoint);
      const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360, frameRate: 30 }, audio: true });
      const a = new RTCPeerConnection();
      const b = new RTCPeerConnection();
      a.onicecandidate = (e) => void (e.candidate && b.addIceCandidate(e.candidate));
      b.onicecandidate = (e) => void (e.candidate && a.addIceCandidate(e.candidate));
      for (const t of stream.getTracks()) a.addTrack(t, stream);
      await a.setLocalDescription();
      await b.setRemoteDescription(a.localDescription!);
      await b.setLocalDescription();
      await a.setRemoteDescription(b.localDescription!);
      w.lab = { pcs: { a, b } };
      // And what an analytics service opens beside a call: a data channel alone that never connects.
      const probe = new RTCPeerConnection();
      probe.createDataChannel('ip-discovery');
      await probe.setLocalDescription();
    }, collector.url);
    await page.waitForTimeout(12_000);
    const [a1, b1] = [await truth(page, 'a'), await truth(page, 'b')];
    await page.waitForTimeout(10_000);
    const [a2, b2] = [await truth(page, 'a'), await truth(page, 'b')];
    const windowEnd = Math.max(a2.wallclock, b2.wallclock) + 500;
    await expect.poll(() => rtcstatsUntil(collector.dumps[0] ?? []), { timeout: 15_000 }).toBeGreaterThan(windowEnd);
    await page.evaluate(() => (window as unknown as { rtcstatsTrace: { close(): void } }).rtcstatsTrace.close());

    expect(collector.dumps[0]!.some((l) => l.startsWith('["getstats","PC_0",'))).toBe(true);
    const file = join(dir(), 'rtcstats-dump.jsonl');
    writeFileSync(file, collector.dumps[0]!.join('\n') + '\n');
    const res = await fetch(`${product.server.url}/api/v1/recordings?name=rtcstats-dump.jsonl`, {
      method: 'POST',
      headers: { authorization: `Bearer ${product.keys.apiKey}` },
      body: collector.dumps[0]!.join('\n') + '\n',
    });
    expect(res.status).toBe(201);
    const imported = (await res.json()) as RecordingImported;
    expect(imported.format).toBe('rtcstats');

    // Both ends of the call were in one page: a participant each, the sender's rates not added to the receiver's.
    const rows = await storedRows(product.env.DATABASE_URL, imported.callId);
    const sender = rows.find((r) => r.direction === 'out' && r.kind === 'video')!.participant;
    const receiver = rows.find((r) => r.direction === 'in' && r.kind === 'video')!.participant;
    expect(sender).not.toBe(receiver);
    expect(new Set(rows.map((r) => r.participant))).toEqual(new Set([sender, receiver]));
    expectAgreement('@jitsi/rtcstats file', rows, { participant: sender, t1: a1, t2: a2 }, { participant: receiver, t1: b1, t2: b2 });
    // The client keeps no SDP: what each connection carries is told from the calls that gave it media or a
    // data channel, and the probe, never connected, raised nothing.
    const api = async <T>(path: string) =>
      (await (
        await fetch(`${product.server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${product.keys.apiKey}` } })
      ).json()) as T;
    const media = (await api<CallDetail>(`/calls/${imported.callId}`)).participants
      .flatMap((p) => p.connections)
      .map(
        (c) =>
          c.media
            ?.map((m) => m.kind)
            .sort()
            .join(', ') ?? null,
      )
      .sort();
    expect(media).toEqual(['application', 'audio, video', 'audio, video']);
    const issues = (await api<CallDiagnosis>(`/calls/${imported.callId}/diagnosis`)).issues;
    expect(issues.filter((i) => i.type === 'slow-setup' || i.type === 'ice-failure')).toEqual([]);
  } finally {
    await collector.close();
    await browser.close();
    await product.server.stop();
  }
});

test('an upload shows its progress and can be cancelled, storing nothing', async () => {
  const product = await startProduct('recordings-cancel');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-cancel'));
  try {
    const file = join(dir(), 'large_dump.txt');
    writeFileSync(file, webrtcInternalsDump({ startMs: Date.now() - 3_600_000, seconds: 600, connections: 40, sendKbps: 800 }));
    const dashboard = await (await loopbackContext(browser)).newPage();
    // An uplink of 1 MB/s: the upload takes long enough to watch and to cancel.
    const cdp = await dashboard.context().newCDPSession(dashboard);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1_000_000 });
    await openWithKey(dashboard, product.server.url, product.keys.apiKey);
    await dashboard.getByTestId('toggle-import').click();
    await dashboard.getByTestId('recording-file').setInputFiles(file);
    const bar = dashboard.getByRole('progressbar', { name: 'Uploading large_dump.txt' });
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000 }).toBeGreaterThan(0);
    await dashboard.getByTestId('cancel-import').click();
    await expect(dashboard.getByTestId('import-error')).toHaveText('large_dump.txt: Cancelled: nothing of it was stored.');
    const calls = await fetch(`${product.server.url}/api/v1/calls`, { headers: { authorization: `Bearer ${product.keys.apiKey}` } });
    expect(((await calls.json()) as { calls: unknown[] }).calls).toEqual([]);
  } finally {
    await browser.close();
    await product.server.stop();
  }
});

test("a received video that never carried a packet is shown greyed with its state, apart from the call's media", async () => {
  const product = await startProduct('recordings-states');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-states'));
  try {
    const file = join(dir(), 'placeholder_dump.txt');
    writeFileSync(
      file,
      webrtcInternalsDump({ startMs: Date.now() - 600_000, seconds: 30, connections: 1, sendKbps: 800, placeholder: true }),
    );
    const dashboard = await (await loopbackContext(browser)).newPage();
    await openWithKey(dashboard, product.server.url, product.keys.apiKey);
    await dashboard.getByTestId('toggle-import').click();
    await dashboard.getByTestId('recording-file').setInputFiles(file);
    await dashboard.getByTestId('import-result').getByRole('link').click();
    const states = dashboard.getByTestId('stream-states');
    await expect(states.getByTestId('stream-state-never-active')).toHaveText(/^never carried media \(.*\): chrome-\d+ ↓ video$/);
    await expect(states.getByTestId('stream-state-paused')).toHaveCount(0);
    await expect(dashboard.getByTestId('recorded-side')).toContainText('One side of the call');
    // Its line in the per-stream charts says so; the streams that carried media are named as they are.
    const legend = dashboard.getByTestId('chart-fps').locator('.recharts-legend-item-text');
    await expect(legend.filter({ hasText: /↓ video \(never carried media\)$/ })).toHaveCount(1);
    await expect(legend.filter({ hasText: /↑ video$/ })).toHaveCount(1);
    // Nor is it in the frame rate received: the recording received no video (none of its zeros counted).
    await expect(dashboard.locator('[data-testid^="summary-chrome-"] td').nth(6)).toHaveText(/^–/);
  } finally {
    await browser.close();
    await product.server.stop();
  }
});

test('a call on a long path: the call page says its sound is fine but late, apart from what its conversation suffers', async () => {
  const product = await startProduct('recordings-late');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(dir(), 'home-late'));
  try {
    // 900 ms round trip: 478 ms mouth to ear (half of it, the jitter buffer at twice the 4-ms jitter, 20 ms of packets); 2 % of the audio lost.
    const file = join(dir(), 'late_dump.txt');
    writeFileSync(file, webrtcInternalsDump({ startMs: Date.now() - 600_000, seconds: 30, connections: 1, sendKbps: 800, rttMs: 900 }));
    const dashboard = await (await loopbackContext(browser)).newPage();
    await openWithKey(dashboard, product.server.url, product.keys.apiKey);
    await dashboard.getByTestId('toggle-import').click();
    await dashboard.getByTestId('recording-file').setInputFiles(file);
    await dashboard.getByTestId('import-result').getByRole('link').click();
    const late = dashboard.getByTestId('score-lowers').locator('[data-testid^="late-"]');
    await expect(late).toHaveText(/^; sounds 4\.[2-3] of 5, but 478 ms late mouth to ear: a conversation scores 2\.\d$/);
  } finally {
    await browser.close();
    await product.server.stop();
  }
});
