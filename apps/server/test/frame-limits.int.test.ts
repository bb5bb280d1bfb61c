import type { IngestAck } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADDRESS_BYTES_PER_10_S, BEFORE_JOIN_BYTES } from '../src/ingest/frame-limits.js';
import { INVALID_PER_MINUTE } from '../src/ingest/plugin.js';
import { handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

// Issue 58, item 6: what a client makes the server read before and after it is let in.

let t: TestServer;
beforeAll(async () => {
  // Compressed ingest on: a small frame may inflate to much more. Behind one proxy, so each probe names its address.
  t = await startTestServer(1, { ingestCompression: true, trustProxy: 1 });
});
afterAll(() => t.close());

/** A raw Engine.IO socket from `address` that compresses what it sends, as browsers do; open once the server's open packet came. */
async function raw(address: string): Promise<{ ws: WebSocket; closed: Promise<number>; next(match: RegExp): Promise<string> }> {
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`, {
    perMessageDeflate: { clientMaxWindowBits: 10, threshold: 0 },
    headers: { 'x-forwarded-for': address },
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  const messages: string[] = [];
  const waiting: { match: RegExp; resolve: (m: string) => void }[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    if (text === '2') return ws.send('3');
    const k = waiting.findIndex((w) => w.match.test(text));
    if (k >= 0) waiting.splice(k, 1)[0]!.resolve(text);
    else messages.push(text);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const next = (match: RegExp) =>
    new Promise<string>((resolve) => {
      const k = messages.findIndex((m) => match.test(m));
      if (k >= 0) resolve(messages.splice(k, 1)[0]!);
      else waiting.push({ match, resolve });
    });
  await next(/^0\{/);
  return { ws, closed, next };
}

const auth = (callId: string, metadata?: Record<string, string>) => ({
  ...handshake(t.projects[0]!, callId, 'bot', callId),
  ...(metadata ? { metadata } : {}),
});

describe('messages before a socket joins a namespace', () => {
  it(`may be ${BEFORE_JOIN_BYTES / 1024} kB at most, inflated: a small frame that unpacks past that closes its socket, and nothing is stored`, async () => {
    const s = await raw('203.0.113.1');
    s.ws.send(`40/ingest,${JSON.stringify({ ...auth('bomb'), pad: 'a'.repeat(BEFORE_JOIN_BYTES) })}`);
    expect(await s.closed).toBe(1009);
    expect((await t.db.pool.query("SELECT 1 FROM call WHERE external_id = 'bomb'")).rows).toEqual([]);
  });

  it('takes the largest handshake an SDK may send, and the message limit once the socket has joined', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 32 }, (_, k) => [`${k}`.padStart(64, 'k'), 'v'.repeat(256)]));
    const s = await raw('203.0.113.2');
    s.ws.send(`40/ingest,${JSON.stringify(auth('largest', metadata))}`);
    expect(await s.next(/^4[04]\/ingest/)).toMatch(/^40\/ingest,/);
    // A batch of 900 kB (its rows' values padded by a long detail in events) is read whole now.
    const events = Array.from({ length: 400 }, (_, k) => [k, k, null, 'track-muted', 'x'.repeat(2000)]);
    s.ws.send(`42/ingest,1["batch",${JSON.stringify({ n: 0, t0: Date.now(), e: events })}]`);
    const ack = JSON.parse((await s.next(/^43\/ingest,1/)).replace(/^43\/ingest,1/, '')) as IngestAck[];
    expect(ack[0], JSON.stringify(ack[0])).toMatchObject({ ok: true });
    s.ws.close();
  });
});

describe('a budget of message bytes per client address', () => {
  it('closes the sockets of an address that sends more than it allows in 10 s and refuses its new ones; other addresses are served', async () => {
    const s = await raw('203.0.113.3');
    s.ws.send(`40/ingest,${JSON.stringify(auth('budget'))}`);
    await s.next(/^40\/ingest/);
    const big = `42/ingest,["batch",${JSON.stringify({ p: '!'.repeat(990_000) })}]`;
    for (let k = 0; k <= ADDRESS_BYTES_PER_10_S / big.length + 1 && s.ws.readyState === WebSocket.OPEN; k++) s.ws.send(big);
    expect(await s.closed).toBe(1005);
    await expect(raw('203.0.113.3')).rejects.toThrow(/refused: 400/);
    const elsewhere = await ingestSocket(t.url, handshake(t.projects[0]!, 'budget-ok', 'alice'), { 'x-forwarded-for': '198.51.100.3' });
    expect(await send(elsewhere, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
    elsewhere.disconnect();
  });
});

describe('invalid messages', () => {
  it(`end their socket past ${INVALID_PER_MINUTE} a minute: an SDK sends none`, async () => {
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'invalid', 'mallory'), { 'x-forwarded-for': '203.0.113.4' });
    const ended = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    for (let k = 0; k < INVALID_PER_MINUTE; k++) {
      expect(await send(socket, { n: k, t0: 'not a time' })).toMatchObject({ ok: false, retry: false, error: { code: 'invalid' } });
    }
    expect(socket.connected).toBe(true);
    void send(socket, { n: INVALID_PER_MINUTE, t0: 'not a time' }).catch(() => null);
    expect(await ended).toBe('io server disconnect');
  });
});
