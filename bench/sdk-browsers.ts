// The SDK's bytes on the wire from real browsers (pnpm bench:sdk measures recorded Chromium stats only):
// a Firefox and a Chromium page in one call, each sending the lab's drawn picture and its fake microphone,
// each page's SDK reporting through a TCP proxy of its own that counts what the page sends the server
// (frames, their headers, any compression). Over the call after its first 15 s: bytes sent per
// stream-sample the server stored of that participant, and whether the page's WebSocket was answered with
// permessage-deflate. Run twice: the server's compressed ingest off (the default), then on.
// Run: pnpm bench:sdk-browsers   (BENCH_SDK_CALL_S=60 a call's length)
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectPeers, firefoxPeer, launchChromium, launchFirefox, openPeer, writeY4m } from '@rtcscope/lab';
import type { CallDetail, Series } from '@rtcscope/protocol';
import { startLabServer } from './lab-server.js';

const CALL_S = Number(process.env.BENCH_SDK_CALL_S ?? 60);
const SETTLE_S = 15;

interface CountingProxy {
  url: string;
  /** Bytes the page sent so far, on every connection it made through the proxy. */
  sent(): number;
  /** The server answered one of its WebSocket upgrades with permessage-deflate. */
  deflated(): boolean;
  close(): void;
}

/** A TCP proxy to `target` that counts what clients send through it. */
async function countingProxy(target: string): Promise<CountingProxy> {
  const { hostname, port } = new URL(target);
  let sent = 0;
  let deflated = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) sockets.add(s);
    client.on('data', (chunk: Buffer) => (sent += chunk.length));
    upstream.on('data', (chunk: Buffer) => {
      const text = chunk.subarray(0, 1024).toString('latin1');
      if (text.startsWith('HTTP/1.1 101') && /^sec-websocket-extensions:\s*permessage-deflate/im.test(text)) deflated = true;
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => [client, upstream].forEach((s) => s.destroy());
    for (const s of [client, upstream]) s.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    sent: () => sent,
    deflated: () => deflated,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

async function measure(compression: 'off' | 'on'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-sdk-browsers-'));
  const server = await startLabServer('sdk-browsers', { INGEST_COMPRESSION: compression });
  const y4m = join(dir, 'camera.y4m');
  await writeY4m(y4m, { width: 640, height: 360, fps: 30, seconds: 2 });
  const chromium = await launchChromium(y4m, join(dir, 'home'));
  const firefox = await launchFirefox(join(dir, 'firefox-profile'));
  const proxies = { firefox: await countingProxy(server.url), chromium: await countingProxy(server.url) };
  try {
    const callId = `sdk-browsers-${compression}`;
    const video = { width: 640, height: 360, fps: 30, source: 'canvas' as const };
    const alice = firefoxPeer(await firefox.newPage());
    const bob = await (await chromium.newContext({ bypassCSP: true })).newPage();
    await openPeer(alice, { server: proxies.firefox.url, ingestKey: server.ingestKey, callId, participantId: 'firefox', video });
    await openPeer(bob, { server: proxies.chromium.url, ingestKey: server.ingestKey, callId, participantId: 'chromium', video });
    await connectPeers(alice, bob);
    await sleep(SETTLE_S * 1000);
    const sentSoFar = () => ({ firefox: proxies.firefox.sent(), chromium: proxies.chromium.sent() });
    const [from, before] = [Date.now(), sentSoFar()];
    await sleep((CALL_S - SETTLE_S) * 1000);
    const [to, after] = [Date.now(), sentSoFar()];
    // The last batch of the window reaches the store a second or so after it is sent.
    await sleep(3000);
    const detail = await server.api<CallDetail>(`/calls/${callId}`);
    const series = await server.api<Series>(`/calls/${callId}/series?from=${from}&to=${to}&maxPoints=10000`);
    if (series.bucketMs !== 1000) throw new Error(`the series came in ${series.bucketMs}-ms buckets, not as stored samples`);
    for (const browser of ['firefox', 'chromium'] as const) {
      const ids = new Set(detail.participants.find((p) => p.id === browser)!.connections.flatMap((c) => c.streams.map((s) => s.id)));
      const samples = series.streams.filter((pt) => ids.has(pt.id) && pt.ts >= from && pt.ts < to).length;
      const bytes = after[browser] - before[browser];
      console.log(
        `${browser.padEnd(9)} compression ${compression.padEnd(3)} answered with permessage-deflate: ${proxies[browser].deflated() ? 'yes' : 'no '}  ` +
          `${bytes} bytes for ${samples} stream-samples in ${((to - from) / 1000).toFixed(0)} s: ${(bytes / samples).toFixed(1)} bytes per stream-sample, ${(bytes / ((to - from) / 1000)).toFixed(0)} bytes/s`,
      );
    }
  } finally {
    await firefox.close();
    await chromium.close();
    for (const p of Object.values(proxies)) p.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`SDK bytes from real browsers: one call, Firefox and Chromium, 640x360 drawn video and audio both ways, ${CALL_S} s`);
await measure('off');
await measure('on');
