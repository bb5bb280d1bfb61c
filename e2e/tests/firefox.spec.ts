import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { connectPeers, firefoxPeer, launchChromium, launchFirefox, openPeer, selectedLocalAddress, truth } from '@rtcscope/lab';
import { expectAgreement } from '../support/agreement.js';
import { storedRowsThrough } from '../support/db.js';
import { startProduct } from '../support/product.js';

// With compressed ingest on (INGEST_COMPRESSION): Chromium's SDK sends its batches deflated; Firefox's offer
// does not let the server set its window, and ws refused its whole handshake for it (no Firefox page could
// report), so Firefox now sends uncompressed. Both reach the store whole. Other tests run with it off.
test("a call between Firefox and Chromium, compressed ingest on: each side's stored numbers agree with its own browser's getStats", async () => {
  const dir = process.env.E2E_DIR!;
  const product = await startProduct('firefox-data', { CALL_IDLE_TIMEOUT_S: '60', INGEST_COMPRESSION: 'on' });
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
    // Everything up to the window's end (and the half second the agreement reads past it) is stored.
    const rows = await storedRowsThrough(product.env.DATABASE_URL, callId, ['alice', 'bob'], Math.max(a2.wallclock, b2.wallclock) + 500);
    // Each side: what it sent (rate, RTT) and what it received (frame rate, loss, resolution).
    expectAgreement('Firefox', rows, { participant: 'alice', t1: a1, t2: a2 }, { participant: 'alice', t1: a1, t2: a2 });
    expectAgreement('Chromium', rows, { participant: 'bob', t1: b1, t2: b2 }, { participant: 'bob', t1: b1, t2: b2 });
  } finally {
    await firefox.close();
    await chromium.close();
    await product.server.stop();
  }
});
