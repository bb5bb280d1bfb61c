import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { networkInterfaces } from 'node:os';
import { expect, test } from '@playwright/test';
import { startServerProcess } from '@rtcscope/server/testing';
import { expectAgreement } from '../support/agreement.js';
import { storedRows, storedRowsThrough, type StoredRow } from '../support/db.js';
import { connectPeers, launchChromium, loopbackContext, openPeer, peerContext, selectedLocalAddress, truth } from '@rtcscope/lab';
import { startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';

test('a real call is monitored live, agrees with getStats, and survives a server restart', async () => {
  const dir = process.env.E2E_DIR!;
  const product = await startProduct('server-data', { CALL_IDLE_TIMEOUT_S: '60' });
  const { env } = product;
  let { server } = product;
  const { apiKey, ingestKey } = product.keys;
  const browser = await launchChromium(process.env.E2E_Y4M!, join(dir, 'home'));
  try {
    // The dashboard is open before the call exists and must see it appear without a reload.
    const dashboard = await (await loopbackContext(browser)).newPage();
    await openWithKey(dashboard, server.url, apiKey);
    await expect(dashboard.getByText('No calls in this range yet')).toBeVisible();

    const callId = 'e2e-call';
    const alice = await (await peerContext(browser)).newPage();
    const bob = await (await peerContext(browser)).newPage();
    // Chrome reports `audioLevel: -1` on an inbound audio stream before its first packet: here bob's
    // browser always does, and the rest of each of its samples must still be stored.
    await bob.addInitScript(() => {
      const getStats = RTCPeerConnection.prototype.getStats;
      RTCPeerConnection.prototype.getStats = async function (this: RTCPeerConnection, ...args: Parameters<typeof getStats>) {
        const report = await getStats.apply(this, args);
        const quirky = new Map<string, Record<string, unknown>>();
        report.forEach((e: Record<string, unknown>) =>
          quirky.set(e.id as string, e.type === 'inbound-rtp' && e.kind === 'audio' ? { ...e, audioLevel: -1 } : e),
        );
        return quirky as unknown as RTCStatsReport;
      };
    });
    await openPeer(alice, { server: server.url, ingestKey, callId, participantId: 'alice' });
    await openPeer(bob, { server: server.url, ingestKey, callId, participantId: 'bob' });
    await connectPeers(alice, bob);
    // Only 127.0.0.1 candidates are signalled, but each side also checks from its other addresses and
    // learns the peer's from those checks, so ICE may pick one: Linux delivers packets between the
    // machine's own addresses over loopback, so the media stays on it either way.
    const own = Object.values(networkInterfaces()).flatMap((addresses) => addresses?.map((a) => a.address) ?? []);
    // Each peer's end of the pair in use (Chromium hides a peer-reflexive remote's address).
    expect(own).toContain(await selectedLocalAddress(alice));
    expect(own).toContain(await selectedLocalAddress(bob));

    const row = dashboard.getByTestId(`call-row-${callId}`);
    await expect(row).toBeVisible({ timeout: 15_000 });
    await expect(row.locator('.badge')).toHaveText('live');
    await expect(row).toContainText('2');
    // The verdict and the means say what they are based on.
    await expect(dashboard.getByTestId('means-definitions')).toContainText(
      'poor with a critical issue or a score under 2, fair with a warning or a score under 3',
    );
    await expect(dashboard.getByTestId('means-definitions')).toContainText('every received stream (audio and video)');

    // Let the bandwidth estimate ramp up, then compare a 10 s window with the peers' own counters.
    await alice.waitForTimeout(15_000);
    const a1 = await truth(alice);
    const b1 = await truth(bob);
    await alice.waitForTimeout(10_000);
    const a2 = await truth(alice);
    const b2 = await truth(bob);
    // Everything up to the window's end (and the half second the agreement reads past it) is stored.
    const rows = await storedRowsThrough(env.DATABASE_URL, callId, ['alice', 'bob'], Math.max(a2.wallclock, b2.wallclock) + 500);
    const bobHears = rows.filter((r) => r.participant === 'bob' && r.direction === 'in' && r.kind === 'audio');
    expect(bobHears.length).toBeGreaterThan(10);
    expect(bobHears.every((r) => r.audioLevel === null && r.outOfRange === 1)).toBe(true);
    expect(bobHears.filter((r) => r.kbps !== null).length).toBeGreaterThan(10);
    const { sent } = expectAgreement(
      'alice to bob',
      rows,
      { participant: 'alice', t1: a1, t2: a2 },
      { participant: 'bob', t1: b1, t2: b2 },
    );

    // The API serves the same stored values.
    const series = (await (
      await fetch(`${server.url}/api/v1/calls/${callId}/series?maxPoints=10000`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as { bucketMs: number; streams: { id: number; ts: number; v: (number | null)[] }[] };
    expect(series.bucketMs).toBe(1000);
    const apiSent = series.streams.filter((p) => p.id === sent[0]!.streamId && sent.some((r) => r.ts === p.ts));
    expect(apiSent.map((p) => p.v[0])).toEqual(sent.map((r) => r.kbps));

    // The call page draws every panel, with units.
    await row.getByRole('link').click();
    await expect(dashboard.getByTestId('call-title')).toHaveText(callId);
    // Each participant's client, told from its browser's user agent (headless Chromium says Chrome).
    await expect(dashboard.getByTestId('client-label')).toHaveText([
      /^\(Chrome \d+ · Linux · desktop\)$/,
      /^\(Chrome \d+ · Linux · desktop\)$/,
    ]);
    for (const chart of ['chart-rate', 'chart-rtt', 'chart-fps', 'chart-resolution', 'chart-fairness']) {
      // A drawn line: a path with at least one segment (flat lines have no height, so no "visibility").
      await expect(dashboard.getByTestId(chart).locator('path.recharts-line-curve').first()).toHaveAttribute('d', /^M[^L]+L/);
    }
    await expect(dashboard.getByTestId('chart-rate')).toContainText('kbit/s');
    await expect(dashboard.getByTestId('out-of-range')).toContainText(/bob ↓ audio \(SSRC \d+\): \d+/);
    await expect(dashboard.getByTestId('chart-rate').locator('.recharts-legend-item')).toHaveCount(4);
    // The call's samples as CSV, from the page: a header with units, a row per stream per second.
    const [csv] = await Promise.all([dashboard.waitForEvent('download'), dashboard.getByTestId('export-csv').click()]);
    expect(csv.suggestedFilename()).toBe(`call-${callId}.csv`);
    const exported = readFileSync(await csv.path(), 'utf8').split('\n');
    expect(exported[0]).toMatch(/^time \(UTC\),participant,direction,kind,ssrc,interval \(ms\),kbps \(kbit\/s\),/);
    expect(exported.filter((l) => l.includes(',alice,out,video,')).length).toBeGreaterThanOrEqual(sent.length);
    const shot = test.info().outputPath('call-page.png');
    await dashboard.screenshot({ path: shot, fullPage: true });
    await test.info().attach('call page', { path: shot, contentType: 'image/png' });

    // Kill the server without warning mid-call; the SDKs keep sampling into their buffers.
    const before = await storedRows(env.DATABASE_URL, callId);
    await server.stop('SIGKILL');
    const killedAt = Date.now();
    console.log('server killed');
    await alice.waitForTimeout(8_000);
    server = await startServerProcess(env);
    const restartedAt = Date.now();
    console.log('server restarted');
    await expect(dashboard.locator('.live-dot')).toHaveText('live', { timeout: 30_000 });

    // Every stored sample is still there, none twice, and the outage's samples arrive: per stream the
    // sequence numbers run without a gap across the outage.
    console.log('dashboard reconnected');
    const outageEnd = Date.now();
    // Every stream (both participants' backlogs) has caught up past the end of the outage.
    await expect
      .poll(
        async () => {
          const now = await storedRows(env.DATABASE_URL, callId);
          return new Set(now.filter((r) => r.ts > outageEnd).map((r) => r.streamId)).size;
        },
        { timeout: 30_000 },
      )
      .toBe(8);
    const after = await storedRows(env.DATABASE_URL, callId);
    const key = (r: StoredRow) => `${r.streamId}:${r.seq}`;
    const afterKeys = new Set(after.map(key));
    expect(afterKeys.size).toBe(after.length);
    expect(before.filter((r) => !afterKeys.has(key(r)))).toEqual([]);
    const byStream = new Map<number, number[]>();
    for (const r of after) byStream.set(r.streamId, [...(byStream.get(r.streamId) ?? []), r.seq]);
    expect(byStream.size).toBe(8);
    for (const [streamId, seqs] of byStream) {
      const span = seqs[seqs.length - 1]! - seqs[0]! + 1;
      expect({ streamId, missing: span - seqs.length }).toEqual({ streamId, missing: 0 });
    }
    // Samples taken while no server was there arrived; a CPU-starved page may sample less than 1/s.
    const outageSeconds = (restartedAt - killedAt) / 1000;
    for (const streamId of byStream.keys()) {
      const during = after.filter((r) => r.streamId === streamId && r.ts > killedAt && r.ts < restartedAt).length;
      expect({ streamId, enough: during >= outageSeconds / 2 }).toEqual({ streamId, enough: true });
    }
  } finally {
    await browser.close();
    await server.stop();
  }
});
