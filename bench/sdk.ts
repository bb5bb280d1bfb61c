// SDK figures: bytes on the wire per stream-sample and per second per connection, CPU time per sample,
// gzipped script size. Run: pnpm bench:sdk (or `pnpm --filter @rtcscope/bench exec tsx sdk.ts`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CONNECTION_FIELDS, encodeValues, STREAM_FIELDS } from '@rtcscope/protocol';
import { createMonitor, normalize } from '@rtcscope/sdk';
import { Server } from 'socket.io';
import { WebSocket } from 'ws';
import { fakePeerConnection } from './fake-peer.js';

const here = dirname(fileURLToPath(import.meta.url));
// Node 20 has no WebSocket of its own; the SDK uses the browser's.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
const ROUNDS = 300;

// 1. Bytes on the wire: the real Monitor and Transport, over a real socket.io connection to a server
// that acknowledges every batch and counts the bytes of each message frame it receives.
const http = createServer();
const io = new Server(http);
let wireBytes = 0;
let streamSamples = 0;
io.of('/ingest').on('connection', (socket) => {
  socket.conn.on('packet', (p: { type: string; data?: unknown }) => {
    if (p.type === 'message' && typeof p.data === 'string') wireBytes += Buffer.byteLength(p.data);
  });
  socket.on('batch', (batch: { n: number; s?: unknown[] }, ack: (a: unknown) => void) => {
    streamSamples += batch.s?.length ?? 0;
    ack({ ok: true, n: batch.n, stored: batch.s?.length ?? 0 });
  });
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const port = (http.address() as { port: number }).port;
const monitor = createMonitor({
  server: `http://127.0.0.1:${port}`,
  ingestKey: 'ik_benchmark',
  callId: 'bench',
  participantId: 'p',
  intervalMs: 3_600_000,
});
monitor.addPeerConnection(fakePeerConnection());
while (!monitor.status.connected) await new Promise((r) => setTimeout(r, 20));
await monitor.sampleAll(); // first round declares streams and has no rates yet
wireBytes = 0;
streamSamples = 0;
for (let k = 0; k < ROUNDS; k++) await monitor.sampleAll();
await monitor.close();
io.close();
const perSample = wireBytes / streamSamples;
const perSecond = wireBytes / ROUNDS;

// 2. CPU per sample: normalize two reports of a 4-stream connection and encode its rows.
const pc = fakePeerConnection();
const reports = await Promise.all(Array.from({ length: 64 }, () => pc.getStats() as unknown as Promise<Map<string, never>>));
const ITER = 20_000;
const cpu0 = process.cpuUsage();
let rows = 0;
for (let k = 0; k < ITER; k++) {
  const { streams, connection } = normalize(reports[k % 63], reports[(k % 63) + 1]!);
  for (const s of streams) rows += encodeValues(STREAM_FIELDS, s.values).length;
  if (connection) rows += encodeValues(CONNECTION_FIELDS, connection.values).length;
}
const cpu = process.cpuUsage(cpu0);
const usPerConnectionSample = (cpu.user + cpu.system) / ITER;

// 3. Size of the <script> build.
const dist = join(here, '../packages/sdk/dist/rtcscope.js');
if (!existsSync(dist)) execFileSync('node', ['build.mjs'], { cwd: join(here, '../packages/sdk'), stdio: 'inherit' });
const script = readFileSync(dist);
const gz = gzipSync(script, { level: 9 }).length;

const line = (label: string, value: string, target: string) => console.log(`${label.padEnd(44)} ${value.padStart(12)}   target ${target}`);
if (rows === 0) throw new Error('the CPU loop encoded nothing');
console.log(`rtcscope SDK benchmark (${ROUNDS} rounds, 1 connection with 4 streams, recorded Chromium 156 stats)`);
line('wire bytes per stream-sample (avg)', `${perSample.toFixed(1)} B`, '<= 100 B');
line('wire bytes per second per connection (1 Hz)', `${perSecond.toFixed(0)} B/s`, '-');
line('CPU per sample, connection with 4 streams', `${(usPerConnectionSample / 1000).toFixed(3)} ms`, '<= 1 ms');
line('script size (rtcscope.js, minified)', `${(script.length / 1024).toFixed(1)} kB`, '-');
line('script size gzipped', `${(gz / 1024).toFixed(1)} kB`, '<= 15 kB');
process.exit(0);
