import { type CallDetail, LIMITS } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** 32 metadata keys no other call of this file uses. */
const keys = (prefix: string) => Object.fromEntries(Array.from({ length: LIMITS.maxMetadataKeys }, (_, k) => [`${prefix}${k}`, k]));
const sample = (n: number) => ({ n, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, n, 0, 1]] });

async function stored(callId: string) {
  const { rows } = await t.db.pool.query<{ call: object; participant: string; metadata: object; samples: number }>(
    `SELECT c.metadata AS call, p.external_id AS participant, p.metadata,
            (SELECT count(*) FROM connection_sample s JOIN connection k ON k.id = s.connection_id WHERE k.participant_id = p.id)::int AS samples
     FROM call c JOIN participant p ON p.call_id = c.id WHERE c.external_id = $1 ORDER BY p.id`,
    [callId],
  );
  return rows;
}

describe('stored metadata, whose ingest key is publishable', () => {
  it("refuses a batch whose metadata would take the participant's past its cap, and stores nothing of it", async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'meta-batches', 'alice'));
    expect(await send(socket, { ...sample(0), metadata: keys('a') })).toMatchObject({ ok: true, stored: 1 });
    expect(await send(socket, { ...sample(1), metadata: keys('b') })).toMatchObject({ ok: true, stored: 1 });
    // Values of keys it has already are taken: the metadata does not grow.
    expect(await send(socket, { n: 2, t0: Date.now(), metadata: { a0: 'changed' } })).toMatchObject({ ok: true });
    const over = await send(socket, { ...sample(3), metadata: keys('c') });
    expect(over).toMatchObject({ ok: false, n: 3, retry: false, error: { code: 'metadata_limit', field: 'metadata' } });
    expect(JSON.stringify(over)).toContain(`more than ${LIMITS.maxStoredMetadataKeys} keys or ${LIMITS.maxStoredMetadataBytes} bytes`);
    // The socket goes on: the same samples go again without the metadata.
    expect(await send(socket, sample(3))).toMatchObject({ ok: true, stored: 1 });
    socket.disconnect();

    const [row] = await stored('meta-batches');
    const metadata = row!.metadata as Record<string, unknown>;
    expect(Object.keys(metadata).length).toBe(LIMITS.maxStoredMetadataKeys);
    expect(metadata).toMatchObject({ a0: 'changed', b31: 31 });
    expect(row!.samples).toBe(3);
  });

  it("refuses metadata that would take the participant's past its bytes with fewer keys than the cap", async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'meta-bytes', 'bob'));
    // Three keys of about 270 bytes each: 20 such batches stay under 16,384 bytes, the 21st would not.
    const long = (k: number) => Object.fromEntries([0, 1, 2].map((i) => [`long${String(k).padStart(2, '0')}${i}`, 'x'.repeat(256)]));
    const acks = [];
    for (let n = 0; n < 21; n++) acks.push(await send(socket, { n, t0: Date.now(), metadata: long(n) }));
    socket.disconnect();
    expect(acks.slice(0, 20).every((a) => a.ok)).toBe(true);
    expect(acks[20]).toMatchObject({ ok: false, error: { code: 'metadata_limit', field: 'metadata' } });
    const [row] = await stored('meta-bytes');
    expect(Object.keys(row!.metadata).length).toBe(60);
  });

  it("refuses a connection whose handshake metadata would take the call's past its cap, across sessions, and closes it", async () => {
    const p = t.projects[0]!;
    const join = (participant: string, prefix: string) =>
      ingestSocket(t.url, { ...handshake(p, 'meta-call', participant, `${participant}-s`), metadata: keys(prefix) });
    const first = await join('alice', 'a');
    expect(await send(first, sample(0))).toMatchObject({ ok: true });
    const second = await join('bob', 'b');
    expect(await send(second, sample(0))).toMatchObject({ ok: true });
    const third = await join('carol', 'c');
    const closed = new Promise((resolve) => third.once('disconnect', resolve));
    expect(await send(third, sample(0))).toMatchObject({
      ok: false,
      retry: false,
      error: { code: 'metadata_limit', field: 'handshake.metadata' },
    });
    expect(await closed).toBe('io server disconnect');
    // A session of a participant already in the call that sends metadata the call holds joins as ever.
    const again = await ingestSocket(t.url, { ...handshake(p, 'meta-call', 'alice', 'alice-s2'), metadata: keys('a') });
    expect(await send(again, sample(0))).toMatchObject({ ok: true });
    for (const s of [first, second, again]) s.disconnect();

    const rows = await stored('meta-call');
    expect(rows.map((r) => r.participant)).toEqual(['alice', 'bob']);
    expect(Object.keys(rows[0]!.call).length).toBe(2 * LIMITS.maxMetadataKeys);
    const detail = await api<CallDetail>(t, '/calls/meta-call', p.apiKey);
    expect(detail.body.participants.map((x) => x.id)).toEqual(['alice', 'bob']);
  });

  it("refuses a session whose handshake metadata would take its participant's past the cap", async () => {
    const p = t.projects[0]!;
    const session = (k: number) => ingestSocket(t.url, { ...handshake(p, `meta-sessions`, 'dave', `dave-${k}`), metadata: keys(`s${k}-`) });
    for (const k of [0, 1]) {
      const s = await session(k);
      expect(await send(s, sample(0))).toMatchObject({ ok: true });
      s.disconnect();
    }
    const third = await session(2);
    const closed = new Promise((resolve) => third.once('disconnect', resolve));
    expect(await send(third, sample(0))).toMatchObject({ ok: false, error: { code: 'metadata_limit', field: 'handshake.metadata' } });
    expect(await closed).toBe('io server disconnect');
    const [row] = await stored('meta-sessions');
    expect(Object.keys(row!.metadata).length).toBe(2 * LIMITS.maxMetadataKeys);
  });
});
