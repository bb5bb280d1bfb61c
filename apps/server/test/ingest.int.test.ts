import {
  type CallDetail,
  type CallEvents,
  type Fairness,
  type FieldSpec,
  SAMPLE_HEAD,
  type Series,
  STREAM_FIELDS,
  streamFieldIndex,
  type StreamFieldName,
} from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const t0 = Date.now() - 60_000;
const at = (name: StreamFieldName) => SAMPLE_HEAD.length + streamFieldIndex(name);

function videoRow(index: number, seq: number, dtMs: number, kbps: number, fps: number): (number | null)[] {
  const row: (number | null)[] = [index, seq, dtMs, kbps, 90, 1, 1.1, 2.5, 12.5];
  row[at('fps')] = fps;
  row[at('width')] = 640;
  row[at('height')] = 360;
  return row;
}

describe('ingest → query', () => {
  it('stores a batch and serves exactly what was sent', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'call-exact', 'alice'));
    const ack = await send(socket, {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1', localCandidateType: 'host', localProtocol: 'udp' }],
      streams: [
        { i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1111, codec: 'VP8' },
        { i: 1, conn: 0, direction: 'out', kind: 'video', ssrc: 2222, codec: 'VP9', contentType: 'screenshare' },
      ],
      s: [videoRow(0, 0, 0, 812.5, 29.5), videoRow(0, 1, 1000, 1024.3, 30)],
      c: [
        [0, 0, 0, 3.5, 2500],
        [0, 1, 1000, 4, 2600],
      ],
      e: [[0, 0, 0, 'connection-state', 'connected']],
    });
    expect(ack).toEqual({ ok: true, n: 0, stored: 4 });
    socket.disconnect();

    const detail = await api<CallDetail>(t, '/calls/call-exact', p.apiKey);
    expect(detail.status).toBe(200);
    expect(detail.body.call.state).toBe('live');
    expect(detail.body.call.participants).toEqual(['alice']);
    const conn = detail.body.participants[0]!.connections[0]!;
    expect(conn).toMatchObject({ key: 'pc1', localCandidateType: 'host', localProtocol: 'udp' });
    expect(conn.streams[0]).toMatchObject({ direction: 'out', kind: 'video', ssrc: 1111, codec: 'VP8', contentType: null });
    expect(conn.streams[1]).toMatchObject({ ssrc: 2222, contentType: 'screenshare' });

    const series = await api<Series>(t, `/calls/call-exact/series?from=${t0 - 1000}&to=${t0 + 5000}`, p.apiKey);
    expect(series.body.bucketMs).toBe(1000);
    expect(series.body.streams.map((pt) => pt.ts)).toEqual([t0, t0 + 1000]);
    const first = series.body.streams[0]!.v;
    expect(first[at('kbps') - 3]).toBeCloseTo(812.5, 3);
    expect(first[at('fps') - 3]).toBeCloseTo(29.5, 3);
    expect(first[at('width') - 3]).toBe(640);
    expect(first[at('packets') - 3]).toBe(90);
    expect(first[at('rttMs') - 3]).toBeCloseTo(12.5, 3);
    expect(first[at('freezes') - 3]).toBeNull();
    expect(series.body.connections.map((pt) => pt.v.slice(0, 2))).toEqual([
      [3.5, 2500],
      [4, 2600],
    ]);
    // Connection points are named by the response itself, as stream points are.
    expect(series.body.connectionFields.slice(0, 2)).toEqual(['rttMs', 'availableOutKbps']);

    // A page that draws a few fields asks only for those, in its own order.
    const some = await api<Series>(t, `/calls/call-exact/series?from=${t0 - 1000}&to=${t0 + 5000}&fields=fps,kbps`, p.apiKey);
    expect(some.body.fields).toEqual(['fps', 'kbps']);
    expect(some.body.streams[0]!.v).toEqual([expect.closeTo(29.5, 3), expect.closeTo(812.5, 3)]);
    const unknown = await api<{ message: string }>(t, '/calls/call-exact/series?fields=kbps,bogus', p.apiKey);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('querystring/fields: no stream field "bogus"');

    const events = await api<CallEvents>(t, '/calls/call-exact/events', p.apiKey);
    expect(events.body.events).toEqual([
      { ts: t0, participantId: 'alice', connectionId: conn.id, type: 'connection-state', detail: 'connected' },
    ]);
  });

  it("keeps what each participant's client is, from its user agent, client hints and SDK, and not the user agent itself", async () => {
    const p = t.projects[0]!;
    const ua = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    const phone = await ingestSocket(
      t.url,
      { ...handshake(p, 'call-client', 'carol'), sdk: 'rtcscope-sdk/0.1.0 wire/3' },
      { 'user-agent': ua, 'sec-ch-ua-platform': '"Android"', 'sec-ch-ua-mobile': '?1' },
    );
    const desktop = await ingestSocket(t.url, handshake(p, 'call-client', 'dave'), {
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
    });
    for (const socket of [phone, desktop]) {
      expect(
        await send(socket, {
          n: 0,
          t0,
          conns: [{ i: 0, key: 'pc1' }],
          streams: [{ i: 0, conn: 0, direction: 'in', kind: 'audio', ssrc: 7 }],
          s: [[0, 0, 0, 32]],
        }),
      ).toMatchObject({ ok: true });
      socket.disconnect();
    }
    const detail = (await api<CallDetail>(t, '/calls/call-client', p.apiKey)).body;
    expect(Object.fromEntries(detail.participants.map((x) => [x.id, x.client]))).toEqual({
      carol: { browser: 'Chrome', browserVersion: '131', os: 'Android', deviceType: 'mobile', sdkVersion: '0.1.0', country: null },
      dave: { browser: 'Firefox', browserVersion: '153', os: 'Linux', deviceType: 'desktop', sdkVersion: null, country: null },
    });
    const { rows } = await t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM participant p, jsonb_each_text(p.metadata) m WHERE m.value LIKE '%Mozilla%'`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it("exports a call's samples as CSV: a row per stream per interval, the same values as its series, units in the header", async () => {
    const p = t.projects[0]!;
    const csv = await fetch(`${t.url}/api/v1/calls/call-exact/export.csv`, { headers: { authorization: `Bearer ${p.apiKey}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="call-call-exact.csv"');
    const [header, ...lines] = (await csv.text())
      .trimEnd()
      .split('\n')
      .map((l) => l.split(','));
    expect(header!.slice(0, 8)).toEqual([
      'time (UTC)',
      'participant',
      'direction',
      'kind',
      'ssrc',
      'interval (ms)',
      'kbps (kbit/s)',
      'packets (packets)',
    ]);
    const series = (await api<Series>(t, '/calls/call-exact/series?maxPoints=10000', p.apiKey)).body;
    expect(lines).toEqual(
      series.streams.map((pt) => [
        new Date(pt.ts).toISOString(),
        'alice',
        'out',
        'video',
        '1111',
        '1000',
        ...pt.v.map((v) => (v === null ? '' : String(v))),
      ]),
    );
    expect(lines).toHaveLength(2);
    expect((await api(t, '/calls/no-such-call/export.csv', p.apiKey)).status).toBe(404);
  });

  it("lists a call's participants in the order the server first heard of them, whatever their clocks say (their colours on the call page)", async () => {
    const p = t.projects[0]!;
    // carol is heard of first; bob's first batch, sent after, is dated a minute before hers (his clock behind).
    for (const [who, at] of [
      ['carol', Date.now()],
      ['bob', Date.now() - 60_000],
      ['alice', Date.now()],
    ] as const) {
      const socket = await ingestSocket(t.url, handshake(p, 'heard-in-order', who));
      expect(await send(socket, { n: 0, t0: at, conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 10]] })).toMatchObject({ ok: true });
      socket.disconnect();
    }
    for (let load = 0; load < 3; load++)
      expect((await api<CallDetail>(t, '/calls/heard-in-order', p.apiKey)).body.participants.map((x) => x.id)).toEqual([
        'carol',
        'bob',
        'alice',
      ]);
  });

  it('stores a resent batch once, also across a new socket of the same session', async () => {
    const p = t.projects[0]!;
    const batch = {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'in', kind: 'audio', ssrc: 42 }],
      s: [
        [0, 0, 0, 32],
        [0, 1, 1000, 33],
      ],
      e: [[0, 0, 0, 'ice-connection-state', 'checking']],
    } as const;
    const first = await ingestSocket(t.url, handshake(p, 'call-resend', 'bob'));
    expect(await send(first, batch)).toMatchObject({ ok: true, stored: 2 });
    expect(await send(first, batch)).toMatchObject({ ok: true, stored: 0 });
    // A batch repeating one stored row beside a new one stores the new one only.
    expect(
      await send(first, {
        n: 1,
        t0,
        s: [
          [0, 1, 1000, 33],
          [0, 2, 2000, 34],
        ],
      }),
    ).toMatchObject({ ok: true, stored: 1 });
    first.disconnect();
    const again = await ingestSocket(t.url, handshake(p, 'call-resend', 'bob'));
    expect(await send(again, batch)).toMatchObject({ ok: true, stored: 0 });
    again.disconnect();
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM stream_sample ss JOIN stream s ON s.id = ss.stream_id WHERE s.ssrc = 42`,
    );
    expect(rows[0].n).toBe(3);
    const events = await api<CallEvents>(t, '/calls/call-resend/events', p.apiKey);
    expect(events.body.events).toHaveLength(1);
  });

  it('acknowledges exactly what each batch stored when two sockets share one session', async () => {
    const p = t.projects[0]!;
    // A monitor back on a new socket while its old one lingers: both send the same batches at once.
    const sockets = await Promise.all([0, 1].map(() => ingestSocket(t.url, handshake(p, 'call-shared', 'erin'))));
    const declared = { conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 4242 }] };
    let acknowledged = 0;
    for (let n = 0; n < 20; n++) {
      const batch = { n, t0, ...declared, s: [videoRow(0, n, n * 1000, 500, 30)] };
      for (const ack of await Promise.all(sockets.map((s) => send(s, batch)))) {
        expect(ack.ok).toBe(true);
        if (ack.ok) acknowledged += ack.stored;
      }
    }
    for (const s of sockets) s.disconnect();
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM stream_sample ss JOIN stream s ON s.id = ss.stream_id WHERE s.ssrc = 4242`,
    );
    expect({ acknowledged, stored: rows[0].n }).toEqual({ acknowledged: 20, stored: 20 });
  });

  it("keeps the call's running means from what was stored: RTT out, loss in, FPS of video in", async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'call-means', 'carol'));
    // Outbound video (RTT 12.5 ms) and inbound audio and video (loss 1 and 3 %, video at 24 fps).
    const row = (index: number, seq: number, lossPct: number, fps: number | null) => {
      const r = videoRow(index, seq, seq * 1000, 500, 30);
      r[at('lossPct')] = lossPct;
      r[at('fps')] = fps;
      return r;
    };
    const first = {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [
        { i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 501 },
        { i: 1, conn: 0, direction: 'in', kind: 'audio', ssrc: 502 },
        { i: 2, conn: 0, direction: 'in', kind: 'video', ssrc: 503 },
      ],
      s: [row(0, 0, 50, 30), row(1, 0, 1, null), row(2, 0, 3, 24)],
    } as const;
    expect(await send(socket, first)).toMatchObject({ ok: true, stored: 3 });
    expect(await send(socket, { n: 1, t0, s: [row(0, 1, 50, 30), row(2, 1, 3, 24)] })).toMatchObject({ ok: true, stored: 2 });
    // A repeated row adds nothing to the means.
    expect(await send(socket, { n: 2, t0, s: [row(2, 1, 3, 24)] })).toMatchObject({ ok: true, stored: 0 });
    socket.disconnect();
    const { body } = await api<CallDetail>(t, '/calls/call-means', p.apiKey);
    expect(body.call.meanRttMs).toBeCloseTo(12.5, 3);
    expect(body.call.meanLossPct).toBeCloseTo((1 + 3 + 3) / 3, 3);
    expect(body.call.meanFps).toBeCloseTo(24, 3);
  });

  it('refuses an invalid batch naming the field and writes nothing of it', async () => {
    const p = t.projects[0]!;
    const before = { samples: await count(t.db, 'stream_sample'), streams: await count(t.db, 'stream'), calls: await count(t.db, 'call') };
    const socket = await ingestSocket(t.url, handshake(p, 'call-invalid', 'carol'));
    const bad: unknown[] = videoRow(0, 1, 1000, 500, 30);
    bad[at('fps')] = 'fast';
    const ack = await send(socket, {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'in', kind: 'video', ssrc: 7 }],
      s: [videoRow(0, 0, 0, 500, 30), bad],
    });
    expect(ack).toMatchObject({ ok: false, retry: false, error: { code: 'invalid', field: 's[1][9]' } });
    const undeclared = await send(socket, { n: 1, t0, s: [[9, 0, 0, 1]] });
    expect(undeclared).toMatchObject({ ok: false, error: { field: 's[0][0]' } });
    const stale = await send(socket, { n: 2, t0: Date.now() - 30 * 86_400_000, conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    expect(stale).toMatchObject({ ok: false, error: { field: 't0', message: expect.stringContaining('client clock') } });
    // A message of events or metadata alone is held to the same window: it would date a new call.
    const future = await send(socket, { n: 3, t0: Date.UTC(2283, 0, 1), e: [[0, 0, null, 'track-muted']] });
    expect(future).toMatchObject({ ok: false, retry: false, error: { code: 'invalid', field: 't0' } });
    expect(await send(socket, { n: 4, t0: Date.UTC(2001, 9, 1), metadata: { a: 1 } })).toMatchObject({ ok: false, error: { field: 't0' } });
    expect(await send(socket, { n: 5, t0: Date.now(), e: [[0, 3_600_000, null, 'track-muted']] })).toMatchObject({
      ok: false,
      error: { field: 'e[0][1]' },
    });
    socket.disconnect();
    expect({ samples: await count(t.db, 'stream_sample'), streams: await count(t.db, 'stream'), calls: await count(t.db, 'call') }).toEqual(
      before,
    );
  });

  it('stores a batch holding values outside the field table: each becomes null and is counted, every other value is kept', async () => {
    const p = t.projects[0]!;
    // Every field, each kind of bad value JSON can carry: below its range, past it, a fraction of an integer.
    const fields = STREAM_FIELDS.filter((f) => f.name !== 'outOfRange');
    const cases = fields.flatMap((f) => [f.min - 1, f.max + 1, ...(f.integer ? [f.min + 1.5] : [])].map((bad) => ({ f, bad })));
    const good = (f: FieldSpec) => (f.name === 'audioLevel' ? 0.5 : f.name === 'qualityLimitation' ? 2 : f.integer ? 3 : 3.5);
    const rows = cases.map(({ f, bad }, k) => [
      0,
      k,
      k * 1000,
      ...STREAM_FIELDS.map((g) => (g.name === 'outOfRange' ? null : g === f ? bad : good(g))),
    ]);
    const socket = await ingestSocket(t.url, handshake(p, 'call-quirks', 'erin'));
    const ack = await send(socket, {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'in', kind: 'video', ssrc: 9 }],
      s: rows,
    });
    socket.disconnect();
    expect(ack).toMatchObject({ ok: true, stored: cases.length, outOfRange: { count: cases.length } });
    if (!ack.ok) return;
    expect(ack.outOfRange?.fields[0]).toEqual({
      field: 's[0].kbps',
      message: 'must be a number in 0..10000000 kbit/s, got -1: stored as null',
    });

    const series = await api<Series>(t, `/calls/call-quirks/series?from=${t0 - 1000}&to=${t0 + cases.length * 1000}`, p.apiKey);
    expect(series.body.streams).toHaveLength(cases.length);
    series.body.streams.forEach((pt, k) => {
      const { f } = cases[k]!;
      fields.forEach((g) => {
        const j = streamFieldIndex(g.name);
        if (g === f) expect(pt.v[j], `${f.name} = ${cases[k]!.bad}`).toBeNull();
        else expect(pt.v[j], `${g.name} beside a bad ${f.name}`).toBeCloseTo(good(g), 5);
      });
      expect(pt.v[streamFieldIndex('outOfRange')]).toBe(1);
    });
    const detail = await api<CallDetail>(t, '/calls/call-quirks', p.apiKey);
    expect(detail.body.participants[0]!.connections[0]!.streams[0]!.outOfRange).toBe(cases.length);
  });

  it('refuses a handshake with a bad field and an unknown key', async () => {
    await expect(ingestSocket(t.url, { v: 1, key: 'ik_123456789', callId: 'c 1', participantId: 'a', session: 's' })).rejects.toMatchObject(
      {
        message: expect.stringContaining('callId'),
      },
    );
    await expect(ingestSocket(t.url, { v: 1, key: 'ik_unknownkey', callId: 'c1', participantId: 'a', session: 's' })).rejects.toMatchObject(
      {
        message: 'unknown ingest key',
        data: { status: 401 },
      },
    );
  });

  it('averages long ranges into buckets server-side', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'call-long', 'dave'));
    const base = Date.now() - 3_600_000;
    const rows = Array.from({ length: 3600 }, (_, k) => [0, k, k * 1000, k % 2 === 0 ? 100 : 300]);
    const ack = await send(socket, {
      n: 0,
      t0: base,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'audio', ssrc: 5 }],
      s: rows,
    });
    expect(ack).toMatchObject({ ok: true, stored: 3600 });
    socket.disconnect();
    const series = await api<Series>(t, `/calls/call-long/series?from=${base}&to=${base + 3_599_000}&maxPoints=600`, p.apiKey);
    expect(series.body.bucketMs).toBe(6000);
    expect(series.body.streams.length).toBeLessThanOrEqual(600);
    expect(series.body.streams[0]!.v[0]).toBeCloseTo(200, 6);
  });

  it("computes Jain's index per interval from stored rates", async () => {
    const p = t.projects[0]!;
    const rates = { a: 1408, b: 451 };
    for (const [who, kbps] of Object.entries(rates)) {
      const socket = await ingestSocket(t.url, handshake(p, 'call-fair', who));
      const ack = await send(socket, {
        n: 0,
        t0,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 9 }],
        s: [
          [0, 0, 0, kbps],
          [0, 1, 1000, kbps],
        ],
      });
      expect(ack.ok).toBe(true);
      socket.disconnect();
    }
    const fairness = await api<Fairness>(t, `/calls/call-fair/fairness?from=${t0}&to=${t0 + 1999}`, p.apiKey);
    expect(fairness.body.points).toHaveLength(2);
    expect(fairness.body.points[0]!.sendKbps).toEqual(rates);
    expect(fairness.body.points[0]!.send).toBeCloseTo(0.7905, 3);
    expect(fairness.body.points[0]!.receive).toBeNull();
  });
});
