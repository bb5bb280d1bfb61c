import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { connectPeers, launchChromium, openPeer, selectedLocalAddress, truth, type TruthSnapshot } from '@rtcscope/lab';
import { storedRows, type StoredRow } from '../support/db.js';
import { firefoxPeer, launchFirefox } from '../support/firefox.js';
import { startProduct } from '../support/product.js';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * One side of the call: what rtcscope stored for it over a window against what its own browser's
 * getStats counted over the same window, with the Chromium test's tolerances.
 */
function compare(browser: string, participant: string, rows: StoredRow[], t1: TruthSnapshot, t2: TruthSnapshot) {
  const inWindow = (r: StoredRow) => r.ts > t1.wallclock + 500 && r.ts <= t2.wallclock + 500;
  const sent = rows.filter((r) => r.participant === participant && r.direction === 'out' && r.kind === 'video' && inWindow(r));
  const received = rows.filter((r) => r.participant === participant && r.direction === 'in' && r.kind === 'video' && inWindow(r));
  expect(sent.length).toBeGreaterThanOrEqual(8);
  expect(received.length).toBeGreaterThanOrEqual(8);

  const truthKbps = ((t2.out!.bytesSent - t1.out!.bytesSent) * 8) / (t2.out!.timestamp - t1.out!.timestamp);
  const truthFps = ((t2.in!.framesDecoded - t1.in!.framesDecoded) * 1000) / (t2.in!.timestamp - t1.in!.timestamp);
  const truthRtt = (1000 * (t2.out!.rttTotal - t1.out!.rttTotal)) / Math.max(1, t2.out!.rttCount - t1.out!.rttCount);
  const storedKbps = mean(sent.map((r) => r.kbps ?? 0));
  const storedFps = mean(received.map((r) => r.fps ?? 0));
  const storedRtt = mean(sent.filter((r) => r.rttMs !== null).map((r) => r.rttMs!));
  const storedLost = received.reduce((n, r) => n + (r.packetsLost ?? 0), 0);
  console.log(
    `${browser}: sent ${truthKbps.toFixed(1)} / stored ${storedKbps.toFixed(1)} kbit/s; received ${truthFps.toFixed(1)} / ${storedFps.toFixed(1)} fps; ` +
      `RTT ${truthRtt.toFixed(2)} / ${storedRtt.toFixed(2)} ms; lost ${t2.in!.packetsLost - t1.in!.packetsLost} / ${storedLost}`,
  );
  expect(truthKbps).toBeGreaterThan(100);
  expect(Math.abs(storedKbps - truthKbps) / truthKbps).toBeLessThan(0.1);
  expect(Math.abs(storedFps - truthFps)).toBeLessThan(2);
  expect(Math.abs(storedRtt - truthRtt)).toBeLessThan(5);
  expect(storedLost).toBe(t2.in!.packetsLost - t1.in!.packetsLost);
  expect([received.at(-1)!.width, received.at(-1)!.height]).toEqual([t2.in!.frameWidth, t2.in!.frameHeight]);
}

test("a call between Firefox and Chromium: each side's stored numbers agree with its own browser's getStats", async () => {
  const dir = process.env.E2E_DIR!;
  const product = await startProduct('firefox-data', { CALL_IDLE_TIMEOUT_S: '60' });
  const chromium = await launchChromium(process.env.E2E_Y4M!, join(dir, 'home-firefox-test'));
  const firefox = await launchFirefox(join(dir, 'firefox-profile'));
  try {
    const callId = 'firefox-chromium';
    const peer = { server: product.server.url, ingestKey: product.keys.ingestKey, callId };
    // Each browser its own process, each monitored by the SDK's <script> build, as a customer's page is.
    const alice = firefoxPeer(await firefox.newPage());
    const bob = await (await chromium.newContext({ bypassCSP: true })).newPage();
    await openPeer(alice, { ...peer, participantId: 'alice' });
    await openPeer(bob, { ...peer, participantId: 'bob' });
    await connectPeers(alice, bob);
    // Firefox gathers no loopback candidate beside its interfaces' (whatever its prefs): the call runs on
    // the machine's own addresses, which Linux delivers over loopback, as the Chromium test's may.
    const own = Object.values(networkInterfaces()).flatMap((addresses) => addresses?.map((a) => a.address) ?? []);
    expect(own).toContain(await selectedLocalAddress(bob));

    // Let the bandwidth estimate ramp up, then compare a 10 s window with each browser's own counters.
    await bob.waitForTimeout(15_000);
    const [a1, b1] = [await truth(alice), await truth(bob)];
    await bob.waitForTimeout(10_000);
    const [a2, b2] = [await truth(alice), await truth(bob)];
    await bob.waitForTimeout(2_500); // the samples that close the window reach the server

    const rows = await storedRows(product.env.DATABASE_URL, callId);
    compare('Firefox', 'alice', rows, a1, a2);
    compare('Chromium', 'bob', rows, b1, b2);
  } finally {
    await firefox.close();
    await chromium.close();
    await product.server.stop();
  }
});
