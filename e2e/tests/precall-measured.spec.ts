import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { EmulatedLink, firefoxPeer, launchChromium, launchFirefox, type PeerPage, runPrecallInPage, UdpProxy } from '@rtcscope/lab';
import type { PrecallList, PrecallMedia } from '@rtcscope/protocol';
import type { PrecallResult } from '@rtcscope/sdk/precall';
import type { LinkState } from '@rtcscope/scenario';
import { freePort, localTurnSecret } from '@rtcscope/server/testing';
import { apiReader, type Product, startProduct } from '../support/product.js';

// What the pre-call test measures against what was set: the lab's link emulator on the path between
// the browser and `npm start`'s coturn (a UDP proxy in front of its port, the only TURN server the
// project names). bench:precall prints the same for more conditions.

const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };

interface Path {
  product: Product;
  up: EmulatedLink;
  down: EmulatedLink;
  close(): Promise<void>;
}

async function pathToTurn(name: string): Promise<Path> {
  const turnPort = await freePort();
  const product = await startProduct(name, { LOCAL_TURN: 'on', LOCAL_TURN_PORT: String(turnPort) });
  const up = new EmulatedLink(open);
  const down = new EmulatedLink(open);
  const proxy = await UdpProxy.open({ address: '127.0.0.1', port: turnPort }, [up], [down]);
  const put = await fetch(`${product.server.url}/api/v1/project/turn`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${product.keys.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ urls: [`turn:127.0.0.1:${proxy.address.port}?transport=udp`], secret: localTurnSecret(product.env.DATA_DIR) }),
  });
  expect(put.status).toBe(200);
  return {
    product,
    up,
    down,
    close: async () => {
      proxy.close();
      await product.server.stop();
    },
  };
}

/** Runs the test under `up` and `down`. */
async function run(page: PeerPage, path: Path, up: Partial<LinkState>, down: Partial<LinkState>): Promise<PrecallResult> {
  path.up.set({ ...open, ...up });
  path.down.set({ ...open, ...down });
  const result = await runPrecallInPage(page, path.product.server.url, path.product.keys.ingestKey, {
    durationS: 9,
    camera: { width: 640, height: 360 },
  });
  expect(result.media, JSON.stringify(result.findings)).not.toBeNull();
  return result;
}
const measure = async (...args: Parameters<typeof run>): Promise<PrecallMedia> => (await run(...args)).media!;

test('in Chromium: throughput within 15 % of a capped uplink, the round trip within 5 ms of the delay set, loss within 2 points', async () => {
  const path = await pathToTurn('precall-measured-chromium');
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-precall-measured'));
  try {
    const page = await browser.newPage();
    // 25 ms each way: 50 ms from the browser to the TURN server and back; 3 % of what goes up lost.
    const delayed = await measure(page, path, { delayMs: 25, loss: { model: 'random', pct: 3 } }, { delayMs: 25 });
    const figures = JSON.stringify(delayed);
    expect(Math.abs(delayed.rttMs!.avg - 50), figures).toBeLessThanOrEqual(5);
    expect(Math.abs(delayed.lossPct!.avg - 3), figures).toBeLessThanOrEqual(2);
    expect(delayed.transport).toBe('udp');

    const capped = await measure(page, path, { rateKbps: 1000 }, {});
    expect(capped.throughputAtLeast, JSON.stringify(capped)).toBe(false);
    expect(Math.abs(capped.throughputKbps - 1000) / 1000, JSON.stringify(capped)).toBeLessThanOrEqual(0.15);
  } finally {
    await browser.close();
    await path.close();
  }
});

test("in Firefox: its devices, the round trip and loss as set, a capped link found full, never above its cap; stored as Firefox's", async () => {
  const path = await pathToTurn('precall-measured-firefox');
  const firefox = await launchFirefox(join(process.env.E2E_DIR!, 'precall-measured-firefox'));
  try {
    const page = firefoxPeer(await firefox.newPage());
    const result = await run(page, path, { delayMs: 25, loss: { model: 'random', pct: 3 } }, { delayMs: 25 });
    // Firefox's fake camera and microphone, each way to the TURN server, media through it, the result stored.
    expect(result.devices.camera.status).toBe('ok');
    expect(result.devices.microphone.status).toBe('ok');
    expect(result.transports).toEqual([expect.objectContaining({ transport: 'udp', connected: true })]);
    expect(result.media).toMatchObject({ transport: 'udp', selectedPair: { localType: 'relay', remoteType: 'relay' } });
    expect(result.stored).toBe(true);
    expect((await apiReader(path.product)<PrecallList>('/precall-tests')).tests[0]).toMatchObject({ browser: 'Firefox', transport: 'udp' });
    const delayed = result.media!;
    const figures = JSON.stringify(delayed);
    expect(Math.abs(delayed.rttMs!.avg - 50), figures).toBeLessThanOrEqual(5);
    expect(Math.abs(delayed.lossPct!.avg - 3), figures).toBeLessThanOrEqual(2);

    // Firefox's own congestion control fills a capped link poorly and unevenly (bench:precall: 20-28 %
    // under the cap, and 45 % in one run here, where Chromium's is 2-14 % under): what a Firefox call
    // through that link would get, but no measure of the link. What holds: the link is found full, and
    // nothing is claimed above the cap.
    const capped = await measure(page, path, { rateKbps: 1000 }, {});
    expect(capped.throughputAtLeast, JSON.stringify(capped)).toBe(false);
    expect(capped.throughputKbps, JSON.stringify(capped)).toBeGreaterThan(250);
    expect(capped.throughputKbps, JSON.stringify(capped)).toBeLessThanOrEqual(1000 * 1.05);
  } finally {
    await firefox.close();
    await path.close();
  }
});
