import { type Fairness, SAMPLE_HEAD, type Series, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_MS, sliceName } from '../src/samples/partitions.js';
import { compactSamples } from '../src/samples/compaction.js';
import { dropExpired } from '../src/samples/retention.js';
import { rollUpEndedCalls } from '../src/samples/rollup.js';
import { api, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const HOUR = 3_600_000;
// Two days back, 90 s before an hour starts: the call's 180 samples span two 10-minute blocks.
const t0 = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR - 90_000;
const at = (name: StreamFieldName) => SAMPLE_HEAD.length + streamFieldIndex(name);

/** Samples that vary the way real ones do: uneven times, changing values, fields missing now and then. */
function streamRow(seq: number): (number | null)[] {
  const row: (number | null)[] = [
    0,
    seq,
    seq * 1000 + ((seq * 37) % 23),
    700 + ((seq * 131) % 97) + 0.25,
    60 + (seq % 9),
    seq % 11 === 0 ? 1 : 0,
  ];
  row[at('rttMs')] = seq % 5 === 0 ? null : 20 + (seq % 13) / 4;
  row[at('fps')] = 29 + (seq % 3) / 2;
  row[at('width')] = 640;
  row[at('height')] = seq < 100 ? 360 : 180;
  return row;
}

const batches = Array.from({ length: 6 }, (_, n) => ({
  n,
  t0,
  ...(n === 0 ? { conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 7 }] } : {}),
  s: Array.from({ length: 30 }, (_, k) => streamRow(n * 30 + k)),
  c: Array.from({ length: 30 }, (_, k) => [0, n * 30 + k, (n * 30 + k) * 1000, 20 + k / 2, 1500 + k]),
}));

const seriesPath = `/calls/old-call/series?from=${t0 - 1000}&to=${t0 + 200_000}`;
const sliceOf = (table: string, at: number) => sliceName(table, Math.floor(at / SLICE_MS) * SLICE_MS);
const tablesNamed = async (names: string[]) =>
  (await t.db.pool.query<{ name: string }>('SELECT relname AS name FROM pg_class WHERE relname = ANY ($1) ORDER BY 1', [names])).rows.map(
    (r) => r.name,
  );

describe('compaction of past slices into blocks', () => {
  it('turns past slices into blocks that serve exactly the same series, drops them, and skips resent rows', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'old-call', 'alice'));
    for (const b of batches) expect(await send(socket, b)).toMatchObject({ ok: true, stored: 60 });
    const before = await api<Series>(t, seriesPath, p.apiKey);
    const fairnessBefore = await api<Fairness>(t, `/calls/old-call/fairness?from=${t0}&to=${t0 + 180_000}&maxPoints=30`, p.apiKey);
    expect(before.body.streams).toHaveLength(180);
    expect(before.body.connections).toHaveLength(180);

    // The two slices the call spans are compacted and dropped, once.
    const slices = [
      sliceOf('connection_sample', t0),
      sliceOf('connection_sample', t0 + 90_000),
      sliceOf('stream_sample', t0),
      sliceOf('stream_sample', t0 + 90_000),
    ];
    expect(await tablesNamed(slices)).toEqual(slices);
    const compacted = await compactSamples(t.db);
    expect(compacted.sort((a, b) => a.partition.localeCompare(b.partition))).toEqual(slices.map((partition) => ({ partition, rows: 90 })));
    expect(await tablesNamed(slices)).toEqual([]);
    const rowsLeft = await t.db.pool.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM stream_sample) + (SELECT count(*) FROM connection_sample) AS n',
    );
    expect(Number(rowsLeft.rows[0]!.n)).toBe(0);
    const blocks = await t.db.pool.query<{ n: number; t0: Date }>('SELECT n, t0 FROM stream_block ORDER BY t0');
    expect(blocks.rows.map((b) => b.n)).toEqual([90, 90]);
    expect(blocks.rows[0]!.t0.getTime()).toBe(t0);
    expect(await compactSamples(t.db)).toEqual([]);

    // Every point comes back the same: times to the millisecond, values, missing fields.
    const after = await api<Series>(t, seriesPath, p.apiKey);
    expect(after.body).toEqual(before.body);
    expect(after.body.streams[5]!.v[at('rttMs') - 3]).toBeNull();
    expect(after.body.streams[150]!.v[at('height') - 3]).toBe(180);
    expect((await api<Fairness>(t, `/calls/old-call/fairness?from=${t0}&to=${t0 + 180_000}&maxPoints=30`, p.apiKey)).body).toEqual(
      fairnessBefore.body,
    );
    // A window across the hour boundary reads from both blocks.
    const window = await api<Series>(t, `/calls/old-call/series?from=${t0 + 85_000}&to=${t0 + 95_000}&fields=kbps`, p.apiKey);
    const inWindow = before.body.streams.filter((pt) => pt.ts >= t0 + 85_000 && pt.ts <= t0 + 95_000);
    expect(window.body.streams.map((pt) => [pt.ts, pt.v[0]])).toEqual(inWindow.map((pt) => [pt.ts, pt.v[at('kbps') - 3]]));
    expect(inWindow.length).toBeGreaterThanOrEqual(10);
    // A batch resent after its slice was compacted and dropped is acknowledged and stored nowhere a
    // second time (the slice is made again for it, and left empty).
    const again = await ingestSocket(t.url, handshake(p, 'old-call', 'alice'));
    expect(await send(again, batches[0]!)).toMatchObject({ ok: true, stored: 0 });
    expect((await api<Series>(t, seriesPath, p.apiKey)).body.streams).toHaveLength(180);
    // A sample never sent before, for that dropped slice, is stored, and a later pass compacts it.
    expect(await send(again, { n: 6, t0, s: [[0, 180, 45_500, 640]] })).toMatchObject({ ok: true, stored: 1 });
    expect(await compactSamples(t.db)).toEqual(expect.arrayContaining([{ partition: sliceOf('stream_sample', t0), rows: 1 }]));
    const withLate = (await api<Series>(t, seriesPath, p.apiKey)).body.streams;
    expect(withLate).toHaveLength(181);
    expect(withLate.filter((pt) => pt.ts === t0 + 45_500).map((pt) => pt.v[at('kbps') - 3])).toEqual([640]);
    expect(await tablesNamed(slices)).toEqual([]);
    again.disconnect();
    socket.disconnect();
  });

  it('leaves the current slices alone, and finishes a slice whose pass stopped after detaching it', async () => {
    const p = t.projects[0]!;
    const now = Date.now();
    const past = Math.floor(now / SLICE_MS) * SLICE_MS - 3 * SLICE_MS + 1000;
    const socket = await ingestSocket(t.url, handshake(p, 'recent-call', 'bob'));
    const first = {
      n: 0,
      t0: past,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'in', kind: 'audio', ssrc: 9 }],
      s: [
        [0, 0, 0, 40],
        [0, 1, 1000, 41],
      ],
    };
    expect(await send(socket, first)).toMatchObject({ ok: true, stored: 2 });
    expect(await send(socket, { n: 1, t0: now, s: [[0, 2, 0, 42]] })).toMatchObject({ ok: true, stored: 1 });
    // As if a pass had stopped between detaching the slice and compacting what landed in it since.
    const stopped = sliceOf('stream_sample', past);
    await t.db.pool.query(`ALTER TABLE stream_sample DETACH PARTITION ${stopped}`);

    const compacted = await compactSamples(t.db);
    expect(compacted).toEqual(expect.arrayContaining([{ partition: stopped, rows: 2 }]));
    expect(compacted.map((c) => c.partition)).not.toContain(sliceOf('stream_sample', now));
    expect(await tablesNamed([stopped, sliceOf('stream_sample', now)])).toEqual([sliceOf('stream_sample', now)]);
    const series = await api<Series>(t, `/calls/recent-call/series?from=${past - 1000}&to=${now + 1000}&fields=kbps`, p.apiKey);
    expect(series.body.streams.map((pt) => pt.v[0])).toEqual([40, 41, 42]);
    const { rows } = await t.db.pool.query<{ part: string }>('SELECT tableoid::regclass::text AS part FROM stream_sample');
    expect(rows).toEqual([{ part: sliceOf('stream_sample', now) }]);
    socket.disconnect();
  });

  it('rolls up a call whose samples are blocks, and drops blocks with their day', async () => {
    // The sweeper ends a call this old at once and may have rolled it up from rows: start again from blocks.
    await t.db.pool.query('DELETE FROM stream_rollup');
    await t.db.pool.query(`UPDATE call SET ended_at = last_seen_at, rolled_up_at = NULL WHERE external_id = 'old-call'`);
    await rollUpEndedCalls(t.db.pool);
    const { rows } = await t.db.pool.query<{ n: number; kbps: number }>('SELECT sum(n)::int AS n, avg(kbps) AS kbps FROM stream_rollup');
    // The call's 180 samples and the one that came late.
    expect(rows[0]!.n).toBe(181);
    const mean = (Array.from({ length: 180 }, (_, s) => streamRow(s)[3] as number).reduce((a, b) => a + b, 0) + 640) / 181;
    expect(rows[0]!.kbps).toBeCloseTo(mean, 0);

    const day = new Date(t0).toISOString().slice(0, 10).replaceAll('-', '');
    const dropped = await dropExpired(t.db.pool, t0 + 40 * DAY);
    expect(dropped).toContain(`stream_block_p${day}_t0`);
    expect(dropped).toContain(`connection_block_p${day}_t0`);
    expect(Number((await t.db.pool.query('SELECT count(*) AS n FROM stream_block')).rows[0].n)).toBe(0);
  });
});
