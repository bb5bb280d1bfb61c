import { type IngestAck, packRows, type References, SAMPLE_HEAD, type Series, streamFieldIndex, type WireRow } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { INVALID_PER_MINUTE } from '../src/ingest/plugin.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const t0 = Date.now() - 60_000;
/** The connection and its two streams, under SSRCs of the test's own. */
const declared = (ssrc: number) => ({
  conns: [{ i: 0, key: 'pc1' }],
  streams: [
    { i: 0, conn: 0, direction: 'in', kind: 'video', ssrc },
    { i: 1, conn: 0, direction: 'in', kind: 'audio', ssrc: ssrc + 1 },
  ],
});
const samplesOf = (ssrc: number) => count(t.db, `stream_sample ss JOIN stream s ON s.id = ss.stream_id WHERE s.ssrc = ${ssrc}`);

/** Stream rows over 3 batches as a browser's change: rates that rise and fall, a value that comes and goes, extremes. */
function batches(): { s: WireRow[]; c: WireRow[] }[] {
  const at = (name: Parameters<typeof streamFieldIndex>[0]) => SAMPLE_HEAD.length + streamFieldIndex(name);
  const video = (seq: number, kbps: number, fps: number | null, qp: number): WireRow => {
    const row: WireRow = [0, seq, seq * 1000, kbps, 90 + seq, 0, 0, 2.5, null, fps, 640, 360];
    row[at('qp')] = qp;
    return row;
  };
  const audio = (seq: number, level: number | null): WireRow => {
    const row: WireRow = [1, seq, seq * 1000 + 3, 32.4, 50, seq % 2, seq % 2 ? 2 : 0, 1.8];
    row[at('audioLevel')] = level;
    row[at('concealedPct')] = 0.25 * seq;
    return row;
  };
  return [
    { s: [video(0, 812.5, 29.5, 31.4), audio(0, 0.012)], c: [[0, 0, 0, 3.5, 2500]] },
    {
      s: [video(1, 10_000_000, null, 0), audio(1, null), video(2, 0, 30, 255), audio(2, 1)],
      c: [
        [0, 1, 1000, 3.4, 100_000_000],
        [0, 2, 2000, null, 2400.7],
      ],
    },
    { s: [video(3, 1706.2, 29.9, 40.1), audio(3, 0.5)], c: [[0, 3, 3000, 600_000, 0]] },
  ];
}

function packed(n: number, base: number | null, rows: { s: WireRow[]; c: WireRow[] }, references: References) {
  const p = packRows({ n, base, t0 }, rows.s, rows.c, references);
  return { batch: { p: p.p }, references: p.references };
}

async function series(callId: string, apiKey: string) {
  const { body } = await api<Series>(t, `/calls/${callId}/series?from=${t0 - 1000}&to=${t0 + 10_000}`, apiKey);
  return { streams: body.streams.map(({ ts, v }) => ({ ts, v })), connections: body.connections.map(({ ts, v }) => ({ ts, v })) };
}

describe('wire version 2', () => {
  it('stores exactly what version 1 stores of the same rows', async () => {
    const p = t.projects[0]!;
    const old = await ingestSocket(t.url, handshake(p, 'call-v1', 'alice'));
    const packer = await ingestSocket(t.url, { ...handshake(p, 'call-v2', 'alice'), v: 2 });
    let references: References = new Map();
    for (const [n, rows] of batches().entries()) {
      const first = n === 0 ? declared(11) : {};
      expect(await send(old, { n, t0, ...first, ...rows })).toMatchObject({ ok: true, n, stored: rows.s.length + rows.c.length });
      const next = packed(n, n === 0 ? null : n - 1, rows, references);
      expect(await send(packer, { ...first, ...next.batch })).toMatchObject({ ok: true, n, stored: rows.s.length + rows.c.length });
      references = next.references;
    }
    old.disconnect();
    packer.disconnect();
    const [one, two] = await Promise.all([series('call-v1', p.apiKey), series('call-v2', p.apiKey)]);
    expect(one.streams).toHaveLength(8);
    expect(two).toEqual(one);
  });

  it('answers a batch packed against one it does not keep to come again whole, and stores it once it does', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, { ...handshake(p, 'call-v2-base', 'bob'), v: 2 });
    const [first, second] = batches();
    const one = packed(0, null, first!, new Map());
    expect(await send(socket, { ...declared(21), ...one.batch })).toMatchObject({ ok: true, stored: 3 });
    // Packed against batch 7, which this socket never sent.
    const unknown = packed(8, 7, second!, one.references);
    expect(await send(socket, unknown.batch)).toEqual({
      ok: false,
      n: 8,
      retry: true,
      error: { code: 'base_unknown', message: expect.stringContaining('packed whole') },
    });
    expect(await samplesOf(21)).toBe(1);
    // Its answer lost, a batch goes again packed against the same base: the server still keeps it.
    const sent = packed(1, 0, second!, one.references);
    expect(await send(socket, sent.batch)).toMatchObject({ ok: true, stored: 6 });
    expect(await send(socket, packed(2, 0, second!, one.references).batch)).toMatchObject({ ok: true, stored: 0 });
    expect(await send(socket, packed(3, null, second!, new Map()).batch)).toMatchObject({ ok: true, stored: 0 });
    socket.disconnect();
    expect(await samplesOf(21)).toBe(3);
  });

  it('refuses what is malformed, naming the field, and stores nothing of it; a version 1 batch on a version 2 socket too', async () => {
    const p = t.projects[0]!;
    const before = await count(t.db, 'stream_sample');
    const socket = await ingestSocket(t.url, { ...handshake(p, 'call-v2-bad', 'carol'), v: 2 });
    const whole = Buffer.from(packRows({ n: 0, base: null, t0 }, batches()[0]!.s, [], new Map()).p, 'base64');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...declared(31), p: 'not base64 at all!' }, 'p', /malformed packed rows/],
      [{ ...declared(31), p: Buffer.from(whole.subarray(0, whole.length - 2)).toString('base64') }, 'p', /end inside a number/],
      [{ ...declared(31), p: packRows({ n: 0, base: null, t0: 5 }, [], [], new Map()).p }, 'p', /t0/],
      // Row 0 names stream 5, never declared.
      [{ ...declared(31), p: packRows({ n: 0, base: null, t0 }, [[5, 0, 0, 1]], [], new Map()).p }, 's[0][0]', /declared/],
      [{ ...declared(31), n: 0, t0, s: batches()[0]!.s }, 'p', /required/],
    ];
    for (const [batch, field, message] of cases) {
      const ack: IngestAck = await send(socket, batch);
      expect(ack).toMatchObject({ ok: false, retry: false, error: { code: 'invalid', field } });
      expect(ack.ok ? '' : ack.error.message).toMatch(message);
    }
    socket.disconnect();
    expect(await count(t.db, 'stream_sample')).toBe(before);
  });

  it('answers random and mutated bytes as an ack (stored, invalid, or base unknown), never failing, and serves the socket after', async () => {
    const p = t.projects[0]!;
    // A socket is ended past INVALID_PER_MINUTE invalid messages: the fuzz goes on on a new one, as an SDK would reconnect.
    const open = async () => {
      const s = await ingestSocket(t.url, { ...handshake(p, 'call-v2-fuzz', 'dave'), v: 2 });
      expect(await send(s, { ...declared(41), ...packed(0, null, batches()[0]!, new Map()).batch })).toMatchObject({ ok: true });
      return s;
    };
    let socket = await open();
    let invalidHere = 0;
    let seed = 39;
    const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const valid = Buffer.from(packRows({ n: 0, base: null, t0 }, batches()[1]!.s, batches()[1]!.c, new Map()).p, 'base64');
    const outcomes = new Map<string, number>();
    for (let k = 0; k < 300; k++) {
      const bytes =
        k % 2 ? Uint8Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)) : Uint8Array.from(valid);
      if (k % 2 === 0) for (let m = 0; m < 3; m++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const ack = await send(socket, { p: Buffer.from(bytes).toString('base64') });
      const outcome = ack.ok ? 'stored' : ack.error.code;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      if (outcome === 'invalid' && ++invalidHere === INVALID_PER_MINUTE) {
        socket.disconnect();
        socket = await open();
        invalidHere = 0;
      }
    }
    expect([...outcomes.keys()].filter((o) => !['stored', 'invalid', 'base_unknown'].includes(o))).toEqual([]);
    expect(outcomes.get('invalid')).toBeGreaterThan(0);
    const again = packed(1000, null, batches()[2]!, new Map());
    expect(await send(socket, again.batch)).toMatchObject({ ok: true });
    socket.disconnect();
  });
});
