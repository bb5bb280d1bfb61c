// Attack frames (issue 58, item 6): the server's CPU per message an attacker sends through the
// publishable key's socket, with compressed ingest on (INGEST_COMPRESSION=on). Two attacks, each from
// one address over a few sockets that reconnect whenever the server closes them:
//   before the handshake: a small compressed frame that inflates to ~1 MB, sent before the socket joins
//     /ingest (every message used to be inflated and parsed before the namespace's handshake);
//   after it: invalid packed batches of ~1 MB (refused, but not counted against any limit).
// Prints per attack the frames sent, their bytes on the wire, the connections it took, what the server
// did, and its CPU per try and per second of attack; and, for scale, a connection alone (opened, closed).
// Between attacks the bench waits out the address's 10-s windows. Run: pnpm bench:attack-frames
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, openDatabase, startEmbeddedPostgres } from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import { startBenchServer } from './bench-server.js';
import WebSocket from 'ws';
import { cpuSeconds } from './proc.js';

const FRAMES = Number(process.env.BENCH_FRAMES ?? 200);
const SOCKETS = 4;
const MB = 1_000_000;

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-attack-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(pg.url);
const project = await createProject(db, 'attack');
// Behind one trusted proxy, so that the attacker is the address it names (loopback is never limited per address).
const server = await startBenchServer(pg.url, join(dir, 'data'), { INGEST_COMPRESSION: 'on', TRUST_PROXY: '1' });
const ATTACKER = '203.0.113.9';
const pid = server.process.pid!;
const endpoint = `${server.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;
const handshake = (k: number) => ({ v: 2, key: project.ingestKey, callId: `attack-${k}`, participantId: 'bot', session: `s${k}` });

/** A raw Engine.IO socket that compresses what it sends as browsers do; resolves once the server's open packet came. */
function open(): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(endpoint, {
      perMessageDeflate: { clientMaxWindowBits: 10, threshold: 0 },
      headers: { 'x-forwarded-for': ATTACKER },
    });
    const closed = new Promise<number>((done) => ws.once('close', (code) => done(code)));
    ws.once('message', () => resolve({ ws, closed }));
    ws.once('error', reject);
  });
}

/** Sends `message` and waits for the server's answer or its closing of the socket; whether it closed. */
function exchange(ws: WebSocket, closed: Promise<number>, message: string, answered: (data: string) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const text = data.toString();
      if (text === '2') ws.send('3');
      else if (answered(text)) {
        ws.off('message', onMessage);
        resolve(false);
      }
    };
    ws.on('message', onMessage);
    void closed.then(() => resolve(true));
    ws.send(message);
  });
}

async function attack(name: string | null, frame: ((k: number) => string) | null, joinFirst: boolean): Promise<void> {
  let wire = 0;
  let sent = 0;
  let connections = 0;
  const outcomes = new Map<string, number>();
  const cpu0 = cpuSeconds((p) => p === pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SOCKETS }, async (_, s) => {
      let socket: Awaited<ReturnType<typeof open>> | null = null;
      for (let k = s; k < FRAMES; k += SOCKETS) {
        if (!socket) {
          socket = await open().catch(() => null);
          if (socket) connections++;
          if (!socket) {
            outcomes.set('refused at upgrade', (outcomes.get('refused at upgrade') ?? 0) + 1);
            continue;
          }
          if (joinFirst) {
            const refusedJoin = await exchange(
              socket.ws,
              socket.closed,
              `40/ingest,${JSON.stringify(handshake(k))}`,
              (d) => d.startsWith('40/ingest') || d.startsWith('44/ingest'),
            );
            if (refusedJoin) {
              socket = null;
              outcomes.set('closed at join', (outcomes.get('closed at join') ?? 0) + 1);
              continue;
            }
          }
        }
        if (!frame) {
          socket.ws.close();
          await socket.closed;
          socket = null;
          outcomes.set('opened and closed', (outcomes.get('opened and closed') ?? 0) + 1);
          continue;
        }
        const before = (socket.ws as unknown as { _socket: { bytesWritten: number } })._socket.bytesWritten;
        sent++;
        const closedNow = await exchange(socket.ws, socket.closed, frame(k), (d) => d.startsWith('43/ingest') || d.startsWith('44/ingest'));
        wire += (socket.ws as unknown as { _socket: { bytesWritten: number } })._socket.bytesWritten - before;
        const outcome = closedNow ? `closed (${await socket.closed})` : 'answered';
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (closedNow) socket = null;
      }
      socket?.ws.close();
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds((p) => p === pid) - cpu0;
  if (name === null) return;
  const each = sent ? `${sent} sent, ${(wire / sent).toFixed(0)} B each on the wire, ` : '';
  console.log(
    `${name}: ${FRAMES} tries on ${SOCKETS} sockets from one address: ${each}${connections} connections let in; ` +
      `${[...outcomes].map(([o, n]) => `${n} ${o}`).join(', ')}; ` +
      `server CPU ${((cpu / FRAMES) * 1000).toFixed(2)} ms per try, ${((cpu / seconds) * 100).toFixed(0)} % of a core over ${seconds.toFixed(1)} s`,
  );
}

try {
  // Warm-up (the server's first connections run cold code), then what a connection alone costs, for scale.
  await attack(null, null, false);
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  await attack('connections alone', null, false);
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  // Before the handshake: a namespace CONNECT whose auth carries ~1 MB of padding, compressed to a few kB.
  await attack(
    'before the handshake (1 MB inflated)',
    (k) => `40/ingest,${JSON.stringify({ ...handshake(k), pad: 'a'.repeat(MB - 200) })}`,
    false,
  );
  // A new address's window (the address budget of the last attack spent): 10 s on.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  // After it: packed batches that are not base64, answered `invalid`.
  await attack(
    'after the handshake (invalid 1 MB packed batch)',
    (k) => `42/ingest,${k}["batch",${JSON.stringify({ p: '!'.repeat(MB - 200) })}]`,
    true,
  );
} finally {
  await server.stop();
  await db.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
