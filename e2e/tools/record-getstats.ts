// Records real getStats() reports of a loopback call in Debian's Chromium as a test fixture for the
// SDK's normalization: `pnpm --filter @rtcscope/e2e exec tsx tools/record-getstats.ts OUT.json`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, peerContext, writeY4m } from '@rtcscope/lab';

const KEEP = [
  'inbound-rtp',
  'outbound-rtp',
  'remote-inbound-rtp',
  'remote-outbound-rtp',
  'candidate-pair',
  'local-candidate',
  'remote-candidate',
  'transport',
  'codec',
];
const out = process.argv[2] ?? 'getstats.json';
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-record-'));
const y4m = join(dir, 'cam.y4m');
await writeY4m(y4m, { seconds: 2 });
const browser = await launchChromium(y4m, join(dir, 'home'));
// getUserMedia needs a secure context: a page on loopback is one.
const http = createServer((_req, res) => res.end('<!doctype html><title>record</title>')).listen(0, '127.0.0.1');
await new Promise((r) => http.once('listening', r));
const address = http.address();
const page = await (await peerContext(browser)).newPage();
await page.goto(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`);
const snapshots = await page.evaluate(async (keep) => {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360 }, audio: true });
  const a = new RTCPeerConnection();
  const b = new RTCPeerConnection();
  a.onicecandidate = (e) => e.candidate && void b.addIceCandidate(e.candidate);
  b.onicecandidate = (e) => e.candidate && void a.addIceCandidate(e.candidate);
  for (const t of stream.getTracks()) a.addTrack(t, stream);
  await a.setLocalDescription(await a.createOffer());
  await b.setRemoteDescription(a.localDescription!);
  await b.setLocalDescription(await b.createAnswer());
  await a.setRemoteDescription(b.localDescription!);
  // No named helpers in here: tsx would wrap them in a `__name` call the page does not have.
  const result: { sender: unknown[]; receiver: unknown[] }[] = [];
  await new Promise((r) => setTimeout(r, 6000));
  for (let k = 0; k < 3; k++) {
    const snapshot = { sender: [] as unknown[], receiver: [] as unknown[] };
    (await a.getStats()).forEach((s: { type: string }) => keep.includes(s.type) && snapshot.sender.push(s));
    (await b.getStats()).forEach((s: { type: string }) => keep.includes(s.type) && snapshot.receiver.push(s));
    result.push(snapshot);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return result;
}, KEEP);
writeFileSync(out, JSON.stringify({ browser: browser.version(), snapshots }, null, 1));
await browser.close();
http.close();
console.log(`wrote ${out}`);
