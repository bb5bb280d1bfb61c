// SDK figures: bytes on the wire per stream-sample and per second per connection, CPU time per sample,
// gzipped script size. Run: pnpm bench:sdk (or `pnpm --filter @rtcscope/bench exec tsx sdk.ts`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  CONNECTION_FIELDS,
  encodeValues,
  type PackedBatch,
  packRows,
  ReferenceHistory,
  type References,
  STREAM_FIELDS,
  unpack,
} from '@rtcscope/protocol';
import { COMPRESSION } from '@rtcscope/server';
import { createMonitor, normalize } from '@rtcscope/sdk';
import { Server } from 'socket.io';
import { WebSocket } from 'ws';
import { fakePeerConnection } from './fake-peer.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 300;

/**
 * 1. Bytes on the wire: the real Monitor and Transport, over a real socket.io connection to a server
 * with the product's socket options that acknowledges every batch. Counted three ways: each message's
 * text (socket.io's packet), the same with the batch's rows as version 1's JSON arrays, and what the
 * server's TCP socket read while the rounds ran (frames, their headers and any compression). The client is a WebSocket as browsers make it: offering permessage-deflate, and then
 * compressing every message, or (`compress` false) not offering it.
 */
async function wire(compress: boolean): Promise<{ message: number; v1: number; tcp: number; perSecond: number; deflated: boolean }> {
  globalThis.WebSocket = class extends WebSocket {
    constructor(url: string) {
      super(url, { perMessageDeflate: compress ? { threshold: 0 } : false });
    }
  } as unknown as typeof globalThis.WebSocket;
  const http = createServer();
  const io = new Server(http, { perMessageDeflate: COMPRESSION });
  const sockets: Socket[] = [];
  http.on('connection', (s: Socket) => sockets.push(s));
  const tcpRead = () => sockets.reduce((n, s) => n + s.bytesRead, 0);
  let message = 0;
  // What version 1 would have sent: the same batch with its rows as JSON arrays.
  let v1 = 0;
  let streamSamples = 0;
  let deflated = false;
  io.of('/ingest').on('connection', (socket) => {
    const ws = (socket.conn.transport as unknown as { socket?: { extensions?: string } }).socket;
    deflated = ws?.extensions?.includes('permessage-deflate') ?? false;
    socket.conn.on('packet', (p: { type: string; data?: unknown }) => {
      if (p.type === 'message' && typeof p.data === 'string') message += Buffer.byteLength(p.data);
    });
    const history = new ReferenceHistory();
    socket.on('batch', (batch: PackedBatch, ack: (a: unknown) => void) => {
      const rows = unpack(batch.p, history);
      history.stored(rows.n, rows.references);
      const unpacked = { ...batch, p: undefined, n: rows.n, t0: rows.t0, s: rows.s, c: rows.c };
      v1 += Buffer.byteLength(JSON.stringify(unpacked)) - Buffer.byteLength(JSON.stringify(batch));
      streamSamples += rows.s.length;
      ack({ ok: true, n: rows.n, stored: rows.s.length });
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
  message = 0;
  v1 = 0;
  streamSamples = 0;
  const read0 = tcpRead();
  for (let k = 0; k < ROUNDS; k++) await monitor.sampleAll();
  const tcp = tcpRead() - read0;
  await monitor.close();
  await new Promise<void>((resolve) => io.close(() => resolve()));
  return {
    message: message / streamSamples,
    v1: (message + v1) / streamSamples,
    tcp: tcp / streamSamples,
    perSecond: tcp / ROUNDS,
    deflated,
  };
}
const plain = await wire(false);
const compressed = await wire(true);
if (plain.deflated || !compressed.deflated) throw new Error('permessage-deflate was not negotiated as asked');

// 2. CPU per sample: normalize two reports of a 4-stream connection, encode its rows and pack them
// against the sample before.
const pc = fakePeerConnection();
const reports = await Promise.all(Array.from({ length: 64 }, () => pc.getStats() as unknown as Promise<Map<string, never>>));
const ITER = 20_000;
const cpu0 = process.cpuUsage();
let rows = 0;
let references: References = new Map();
for (let k = 0; k < ITER; k++) {
  const { streams, connection } = normalize(reports[k % 63], reports[(k % 63) + 1]!);
  const s = streams.map((stream, i) => [i, k, 0, ...encodeValues(STREAM_FIELDS, stream.values)]);
  const c = connection ? [[0, k, 0, ...encodeValues(CONNECTION_FIELDS, connection.values)]] : [];
  const packed = packRows({ n: k, base: k ? k - 1 : null, t0: 1e12 }, s, c, references);
  references = packed.references;
  rows += s.length + c.length;
}
const cpu = process.cpuUsage(cpu0);
const usPerConnectionSample = (cpu.user + cpu.system) / ITER;

// 3. Size of the <script> build.
const dist = join(here, '../packages/sdk/dist/rtcscope.js');
if (!existsSync(dist)) execFileSync('node', ['build.mjs'], { cwd: join(here, '../packages/sdk'), stdio: 'inherit' });
const script = readFileSync(dist);
const gz = gzipSync(script, { level: 9 }).length;

const line = (label: string, value: string, target: string) => console.log(`${label.padEnd(52)} ${value.padStart(12)}   target ${target}`);
if (rows === 0) throw new Error('the CPU loop encoded nothing');
console.log(`rtcscope SDK benchmark (${ROUNDS} rounds, 1 connection with 4 streams, recorded Chromium 156 stats)`);
line('message bytes per stream-sample, wire version 1 (JSON)', `${plain.v1.toFixed(1)} B`, '-');
line('message bytes per stream-sample, wire version 2', `${plain.message.toFixed(1)} B`, '-');
line('wire bytes per stream-sample, uncompressed', `${plain.tcp.toFixed(1)} B`, '<= 40 B');
line('wire bytes per stream-sample, INGEST_COMPRESSION=on', `${compressed.tcp.toFixed(1)} B`, '-');
line('wire bytes per second per connection, compressed', `${compressed.perSecond.toFixed(0)} B/s`, '-');
line('CPU per sample, connection with 4 streams', `${(usPerConnectionSample / 1000).toFixed(3)} ms`, '<= 1 ms');
line('script size (rtcscope.js, minified)', `${(script.length / 1024).toFixed(1)} kB`, '-');
line('script size gzipped', `${(gz / 1024).toFixed(1)} kB`, '<= 15 kB');
process.exit(0);
