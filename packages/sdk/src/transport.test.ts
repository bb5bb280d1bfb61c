import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { type PackedBatch, ReferenceHistory, unpack, type WireRow } from '@rtcscope/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { DescriptorRegistry } from './registry.js';
import { IngestSocket } from './socket.js';
import { routeOf, Transport } from './transport.js';

// Node 20 has no WebSocket of its own; browsers and Node 22 do.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;

/**
 * A socket.io server on loopback whose `/ingest` refuses the first `refusals` sockets with `code`, and
 * answers the first `limited` batches as a project over its ingest limit; with `refuseMetadata`, it
 * refuses every batch that carries metadata, as when the participant's is full.
 */
async function refusingServer(refusals: number, code: string, limited = 0, refuseMetadata = false) {
  const http = createServer();
  const io = new Server(http);
  const state = { attempts: 0, batches: 0 };
  io.of('/ingest')
    .use((_socket, next) => {
      state.attempts++;
      if (state.attempts > refusals) return next();
      next(
        Object.assign(new Error(`refused (${code})`), {
          data: {
            status: ({ unavailable: 503, too_many_connections: 429, too_many_calls: 429 } as Record<string, number>)[code] ?? 401,
            code,
          },
        }),
      );
    })
    .on('connection', (socket) => {
      const history = new ReferenceHistory();
      socket.on('batch', (batch: PackedBatch, ack: (a: unknown) => void) => {
        state.batches++;
        const { n, s, references } = unpack(batch.p, history);
        if (refuseMetadata && batch.metadata) {
          return ack({ ok: false, n, retry: false, error: { code: 'metadata_limit', field: 'metadata', message: 'full' } });
        }
        if (state.batches <= limited) return ack({ ok: false, n, retry: true, error: { code: 'rate_limited', message: 'over the limit' } });
        history.stored(n, references);
        ack({ ok: true, n, stored: s.length });
      });
    });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, state, close: () => new Promise<void>((r) => io.close(() => r())) };
}

const options = (url: string) => ({
  server: url,
  handshake: { v: 2 as const, key: 'ik_testtesttest', callId: 'c', participantId: 'p', session: 's' },
  maxBufferedRows: 100,
  ackTimeoutMs: 2000,
});

function transport(url: string, errors: string[]) {
  return new Transport({ ...options(url), onError: (e) => errors.push(e.code) }, new DescriptorRegistry());
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0)) await c();
});

describe('routeOf', () => {
  it("is the same for a call's participants, differs between calls, and does not show the call id", () => {
    expect(routeOf('room-42')).toBe(routeOf('room-42'));
    const routes = new Set(Array.from({ length: 1000 }, (_, k) => routeOf(`room-${k}`)));
    expect(routes.size).toBe(1000);
    expect(routeOf('room-42')).toMatch(/^[0-9a-z]{1,7}$/);
    expect(routeOf('room-42')).not.toContain('room');
  });
});

describe('Transport', () => {
  it.each(['unavailable', 'too_many_connections', 'too_many_calls'])(
    'comes back after a refusal that asks it to (%s), and sends what waited',
    async (code) => {
      const server = await refusingServer(2, code);
      const errors: string[] = [];
      const t = transport(server.url, errors);
      cleanups.push(() => t.close(0), server.close);
      t.streamRows.push({ ts: Date.now(), row: [0, 0, 1] });
      await expect.poll(() => t.connected, { timeout: 5000 }).toBe(true);
      await t.flush();
      expect(server.state.attempts).toBe(3);
      expect(errors).toEqual([code, code]);
      expect(server.state.batches).toBe(1);
      expect(t.streamRows.size).toBe(0);
    },
  );

  it('does not come back after a refusal of its key', async () => {
    const server = await refusingServer(1, 'unauthorized');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const errors: string[] = [];
    let refused!: () => void;
    const wasRefused = new Promise<void>((resolve) => (refused = resolve));
    const t = new Transport({ ...options(server.url), onError: (e) => (errors.push(e.code), refused()) }, new DescriptorRegistry());
    cleanups.push(() => t.close(0), server.close);
    await wasRefused;
    // Far past any backoff (5 s at most): a transport that comes back would be reconnecting by now.
    await vi.advanceTimersByTimeAsync(60_000);
    vi.useRealTimers();
    // A sentinel connection opened after any such attempt: once the server has seen it, it has seen that too.
    const sentinel = new IngestSocket(server.url, '/ingest', {}, 5000);
    await new Promise<void>((resolve) => sentinel.once('connect', () => resolve()));
    sentinel.disconnect();
    expect(server.state.attempts).toBe(2);
    expect(errors).toEqual(['unauthorized']);
    expect(t.connected).toBe(false);
  });

  it("keeps batches over the project's ingest limit, sends them again, and says so once", async () => {
    const server = await refusingServer(0, '', 2);
    const errors: string[] = [];
    const t = transport(server.url, errors);
    cleanups.push(() => t.close(0), server.close);
    t.streamRows.push({ ts: Date.now(), row: [0, 0, 1] });
    // The first batch goes on connecting.
    await expect.poll(() => errors, { timeout: 5000 }).toEqual(['rate_limited']);
    await t.flush();
    expect(server.state.batches).toBe(2);
    expect(t.streamRows.size).toBe(1);
    expect(errors).toEqual(['rate_limited']);
    await t.flush();
    expect(server.state.batches).toBe(3);
    expect(t.streamRows.size).toBe(0);
  });

  it('sends the rows of a batch refused for its metadata again, without the metadata, and says so', async () => {
    const server = await refusingServer(0, '', 0, true);
    const errors: string[] = [];
    const t = transport(server.url, errors);
    cleanups.push(() => t.close(0), server.close);
    await expect.poll(() => t.connected, { timeout: 5000 }).toBe(true);
    t.setMetadata({ layout: 'grid' });
    t.streamRows.push({ ts: Date.now(), row: [0, 0, 1] });
    await t.flush();
    expect(errors).toEqual(['metadata_limit']);
    // The backlog goes on at once, in a second batch.
    await expect.poll(() => t.streamRows.size, { timeout: 5000 }).toBe(0);
    expect(server.state.batches).toBe(2);
  });

  it('packs each batch against the last the server stored: the same base again after an answer that never came, whole after one the server forgot', async () => {
    // The server stores every batch; it leaves the second unanswered, and says it does not keep the
    // base of the fourth.
    const http = createServer();
    const io = new Server(http);
    const seen: { base: number | null; s: WireRow[] }[] = [];
    io.of('/ingest').on('connection', (socket) => {
      const history = new ReferenceHistory();
      socket.on('batch', (batch: PackedBatch, ack: (a: unknown) => void) => {
        const got = unpack(batch.p, history);
        seen.push({ base: got.base, s: got.s });
        if (seen.length === 4) return ack({ ok: false, n: got.n, retry: true, error: { code: 'base_unknown', message: 'not kept' } });
        history.stored(got.n, got.references);
        if (seen.length !== 2) ack({ ok: true, n: got.n, stored: got.s.length });
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const t = new Transport({ ...options(url), ackTimeoutMs: 300, onError: () => {} }, new DescriptorRegistry());
    cleanups.push(
      () => t.close(0),
      () => new Promise<void>((r) => io.close(() => r())),
    );
    await expect.poll(() => t.connected, { timeout: 5000 }).toBe(true);
    for (let k = 0; k < 6; k++) {
      t.streamRows.push({ ts: Date.now(), row: [0, k, 30 + k / 10, 50, null, k % 2 ? 0.5 : null] });
      await t.flush();
    }
    expect(seen.map((b) => b.base)).toEqual([null, 0, 0, 2, null, 4]);
    // What the server unpacked is what was sent: the unanswered batch's row again in the next, the
    // refused one's in the whole one after it.
    expect(seen.map((b) => b.s.map((r) => [r[1], ...r.slice(3)]))).toEqual([
      [[0, 30, 50]],
      [[1, 30.1, 50, null, 0.5]],
      [
        [1, 30.1, 50, null, 0.5],
        [2, 30.2, 50],
      ],
      [[3, 30.3, 50, null, 0.5]],
      [
        [3, 30.3, 50, null, 0.5],
        [4, 30.4, 50],
      ],
      [[5, 30.5, 50, null, 0.5]],
    ]);
  });
});
