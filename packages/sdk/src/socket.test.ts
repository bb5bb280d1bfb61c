import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { IngestSocket } from './socket.js';

// Node 20 has no WebSocket of its own; browsers and Node 22 do.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

interface Events {
  echo: (value: { x: number }, ack: (answer: { got: number; auth: unknown; route: unknown }) => void) => void;
  late: (ack: (answer: string) => void) => void;
  leave: (ack: (answer: string) => void) => void;
}

/** A stock socket.io server whose `/ingest` echoes with the handshake's auth, and answers `late` only when told. */
async function echoServer(options: { pingInterval?: number; pingTimeout?: number } = {}) {
  const http = createServer();
  const io = new Server(http, options);
  const state = { connections: 0, disconnects: 0, pongs: 0, answerLate: [] as (() => void)[] };
  io.of('/ingest').on('connection', (socket) => {
    state.connections++;
    socket.conn.on('packet', (p: { type: string }) => p.type === 'pong' && state.pongs++);
    socket.on('disconnect', () => state.disconnects++);
    socket.on('echo', (value: { x: number }, ack: (a: unknown) => void) =>
      ack({ got: value.x, auth: socket.handshake.auth, route: socket.handshake.query.route }),
    );
    socket.on('late', (ack: (a: unknown) => void) => state.answerLate.push(() => ack('late')));
    socket.on('leave', () => socket.disconnect());
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, io, state, close: () => new Promise<void>((r) => io.close(() => r())) };
}

const connected = (s: IngestSocket<Events>) => new Promise<void>((resolve) => s.once('connect', resolve));

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('IngestSocket', () => {
  it('joins the namespace with its auth and its query, and matches each acknowledgement to its event', async () => {
    const server = await echoServer();
    const socket = new IngestSocket<Events>(server.url, '/ingest', { key: 'ik_x' }, 5000, { route: 'r1 &x' });
    cleanups.push(server.close, () => socket.disconnect());
    await connected(socket);
    const answers = await Promise.all([1, 2, 3].map((x) => socket.emitWithAck('echo', 2000, { x })));
    expect(answers).toEqual([1, 2, 3].map((x) => ({ got: x, auth: { key: 'ik_x' }, route: 'r1 &x' })));
  });

  it('gives up on an acknowledgement at its timeout, and drops it when it comes later', async () => {
    const server = await echoServer();
    const socket = new IngestSocket<Events>(server.url, '/ingest', {}, 5000);
    cleanups.push(server.close, () => socket.disconnect());
    await connected(socket);
    await expect(socket.emitWithAck('late', 50)).rejects.toThrow('timed out');
    server.state.answerLate[0]!();
    // The sentinel: an event sent after the late answer is answered after it, on the same socket.
    expect(await socket.emitWithAck('echo', 2000, { x: 7 })).toMatchObject({ got: 7 });
    expect(socket.connected).toBe(true);
  });

  it("answers the server's pings, so an idle connection stays up", async () => {
    const server = await echoServer({ pingInterval: 50, pingTimeout: 100 });
    const socket = new IngestSocket<Events>(server.url, '/ingest', {}, 5000);
    cleanups.push(server.close, () => socket.disconnect());
    await connected(socket);
    await expect.poll(() => server.state.pongs, { timeout: 5000 }).toBeGreaterThanOrEqual(10);
    expect(server.state).toMatchObject({ connections: 1, disconnects: 0 });
    expect(socket.connected).toBe(true);
  });

  it('comes back after its connection drops, and says it was gone', async () => {
    const server = await echoServer();
    const socket = new IngestSocket<Events>(server.url, '/ingest', {}, 5000);
    cleanups.push(server.close, () => socket.disconnect());
    await connected(socket);
    let gone = 0;
    socket.on('disconnect', () => gone++);
    const back = connected(socket);
    // The connection closes under the session (a server stopping, a network lost): no word from the server.
    for (const s of server.io.of('/ingest').sockets.values()) s.conn.close();
    await back;
    expect(gone).toBe(1);
    expect(server.state.connections).toBe(2);
    expect(await socket.emitWithAck('echo', 2000, { x: 1 })).toMatchObject({ got: 1 });
  });

  it('stays away once the server ended its session, as socket.io-client does', async () => {
    const server = await echoServer();
    const socket = new IngestSocket<Events>(server.url, '/ingest', {}, 5000);
    cleanups.push(server.close, () => socket.disconnect());
    await connected(socket);
    const gone = new Promise<void>((resolve) => socket.once('disconnect', resolve));
    void socket.emitWithAck('leave', 1000).catch(() => undefined);
    await gone;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Far past any backoff (5 s at most): a socket that comes back would be connecting by now.
    await vi.advanceTimersByTimeAsync(60_000);
    vi.useRealTimers();
    // The sentinel: a socket opened after any such attempt; once the server has it, it has seen that too.
    const sentinel = new IngestSocket<Events>(server.url, '/ingest', {}, 5000);
    cleanups.push(() => sentinel.disconnect());
    await connected(sentinel);
    expect(server.state.connections).toBe(2);
    expect(socket.active).toBe(false);
  });

  it('takes a server gone silent as gone, and comes back', async () => {
    // A server that opens with a short ping interval, lets the namespace in, then never pings.
    const http = createServer();
    const wss = new WebSocketServer({ server: http });
    let opened = 0;
    wss.on('connection', (ws) => {
      opened++;
      ws.send(JSON.stringify({ sid: 's', upgrades: [], pingInterval: 100, pingTimeout: 100, maxPayload: 1e6 }).replace(/^/, '0'));
      ws.on('message', (m: Buffer) => m.toString().startsWith('40/ingest,') && ws.send('40/ingest,{"sid":"n"}'));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const socket = new IngestSocket<Events>(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, '/ingest', {}, 5000);
    cleanups.push(
      () => new Promise((r) => http.close(r)),
      () => wss.close(),
      () => socket.disconnect(),
    );
    await connected(socket);
    await connected(socket);
    expect(opened).toBe(2);
  });
});
