import { LIMITS } from '@rtcscope/protocol/fields';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, handshake, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
let plain: TestServer;
beforeAll(async () => {
  [t, plain] = await Promise.all([startTestServer(1, { ingestCompression: true }), startTestServer(1)]);
});
afterAll(async () => {
  await Promise.all([t?.close(), plain?.close()]);
});

/**
 * An SDK-side socket whose WebSocket compresses every message, as browsers do once the server accepts.
 * Its offer lets the server set the client's window (as Chromium's does) unless `windowOffered` is false
 * (as Firefox ESR 153's, which offers plain `permessage-deflate`).
 */
async function compressingSocket(callId: string, server = t, windowOffered = true): Promise<Socket> {
  const socket = io(`${server.url}/ingest`, {
    auth: handshake(server.projects[0]!, callId, 'p') as unknown as Record<string, unknown>,
    transports: ['websocket'],
    reconnection: false,
    perMessageDeflate: { threshold: 0, ...(windowOffered ? {} : { clientMaxWindowBits: false }) },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  return socket;
}

/** What the socket's WebSocket agreed with the server of permessage-deflate (undefined: not used). */
const deflate = (socket: Socket) =>
  (socket.io.engine.transport as unknown as { ws: { _extensions: Record<string, { params: Record<string, unknown> }> } }).ws._extensions[
    'permessage-deflate'
  ]?.params;

const batch = (n: number) => ({ n, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, n, 0, 20]] });

describe('compressed batches (permessage-deflate, INGEST_COMPRESSION=on)', () => {
  it('are not offered by a server left at its default: the socket sends plain, and is served', async () => {
    const socket = await compressingSocket('plain', plain);
    expect(deflate(socket)).toBeUndefined();
    expect(await send(socket, batch(0))).toMatchObject({ ok: true });
    socket.disconnect();
  });

  it('are taken with a 1 kB window and stored as sent', async () => {
    const socket = await compressingSocket('deflated');
    expect(deflate(socket)).toMatchObject({ client_max_window_bits: 10 });
    for (let n = 0; n < 3; n++) expect(await send(socket, batch(n))).toMatchObject({ ok: true, n });
    socket.disconnect();
    const { rows } = await t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM connection_sample s JOIN connection cn ON cn.id = s.connection_id JOIN participant p ON p.id = cn.participant_id
       JOIN call c ON c.id = p.call_id WHERE c.external_id = 'deflated'`,
    );
    expect(rows[0]!.n).toBe(3);
  });

  it('are not taken from a browser whose offer does not let the server set its window: it sends plain, and is served', async () => {
    const socket = await compressingSocket('window-kept', t, false);
    expect(deflate(socket)).toBeUndefined();
    expect(await send(socket, batch(0))).toMatchObject({ ok: true });
    socket.disconnect();
  });

  it('that unpack past the message limit close their socket and store nothing; the server serves the next', async () => {
    const before = await count(t.db, 'connection_sample');
    const socket = await compressingSocket('bomb');
    expect(deflate(socket)).toBeDefined();
    // A few kB on the wire that unpack to twice the limit.
    const bomb = { ...batch(0), metadata: { pad: '0'.repeat(2 * LIMITS.maxMessageBytes) } };
    const closed = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    void send(socket, bomb).catch(() => undefined);
    expect(await closed).toBe('transport close');
    const sentinel = await compressingSocket('after-bomb');
    expect(await send(sentinel, batch(0))).toMatchObject({ ok: true });
    sentinel.disconnect();
    expect(await count(t.db, 'connection_sample')).toBe(before + 1);
    const { rows } = await t.db.pool.query("SELECT 1 FROM call WHERE external_id = 'bomb'");
    expect(rows).toEqual([]);
  });
});
