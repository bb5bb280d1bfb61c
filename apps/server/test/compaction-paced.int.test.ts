import { getPriority } from 'node:os';
import type { Series } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_MS, sliceName } from '../src/samples/partitions.js';
import { compactSamples } from '../src/samples/compaction.js';
import { api, eventually, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

// A slice 40 minutes back: over, and due for compaction. Each stream has samples in every minute of it
// (rows are keyed by minute first: a chunk or a read that missed a minute would miss its samples).
const start = Math.floor(Date.now() / SLICE_MS) * SLICE_MS - 4 * SLICE_MS;
const t0 = start + 1000;
const slice = sliceName('stream_sample', start);
const streams = [0, 1, 2].map((i) => ({ i, conn: 0, direction: i === 0 ? 'out' : 'in', kind: i === 2 ? 'audio' : 'video', ssrc: 10 + i }));
const row = (stream: number, seq: number) => [stream, seq, seq * 29_000 + stream * 7, 100 * (stream + 1) + seq];
const batches = Array.from({ length: 2 }, (_, n) => ({
  n,
  t0,
  ...(n === 0 ? { conns: [{ i: 0, key: 'pc1' }], streams } : {}),
  s: streams.flatMap((s) => Array.from({ length: 10 }, (_, k) => row(s.i, n * 10 + k))),
}));
const seriesPath = `/calls/paced-call/series?from=${start}&to=${start + SLICE_MS - 1}&fields=kbps`;
const points = (s: Series) => s.streams.map((p) => [p.id, p.ts, p.v[0]]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
const inProgress = async () =>
  (await t.db.pool.query<{ partition: string }>('SELECT partition FROM compaction')).rows.map((r) => r.partition);
const walRecords = async (pid: number) =>
  Number((await t.db.pool.query('SELECT wal_records FROM pg_stat_get_backend_wal($1)', [pid])).rows[0].wal_records);
const chunksDone = async () =>
  Number((await t.db.pool.query('SELECT count(*) AS n FROM compaction_chunk WHERE partition = $1', [slice])).rows[0].n);

describe('paced compaction, a chunk of streams at a time', () => {
  it('hides blocks of a slice still being compacted, goes on after a stop, and takes in rows that came late', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'paced-call', 'carol'));
    for (const b of batches) expect(await send(socket, b)).toMatchObject({ ok: true, stored: 30 });
    const before = points((await api<Series>(t, seriesPath, p.apiKey)).body);
    expect(before).toHaveLength(60);

    // This test follows the stream slice alone. The empty connection slice beside it would come first
    // in the pass, and the pause after its chunk (999 times as long as the chunk) outlast the test.
    await t.db.pool.query(`DROP TABLE IF EXISTS ${sliceName('connection_sample', start)}`);
    const backgroundPid = (await t.db.background.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    expect(await walRecords(backgroundPid)).toBe(0);
    // One stream per chunk, long pauses between them: the pass is stopped after the slice's first chunk.
    const stop = new AbortController();
    const pass = compactSamples(t.db, { chunkIds: 1, share: 0.001, signal: stop.signal });
    await eventually(chunksDone, (n) => n >= 1);
    stop.abort();
    expect((await pass).map((c) => c.partition)).not.toContain(slice);
    expect(await chunksDone()).toBe(1);
    expect(await inProgress()).toEqual([slice]);
    // The chunk was written on the background connection (the only WAL its process wrote), whose process
    // runs at the lowest priority. An idle backend reports its figures within 10 s (PostgreSQL's
    // PGSTAT_IDLE_INTERVAL) when it last reported less than a second before.
    await expect.poll(() => walRecords(backgroundPid), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(getPriority(backgroundPid)).toBe(19);
    const blocks = await t.db.pool.query<{ n: number }>('SELECT n FROM stream_block');
    expect(blocks.rows).toEqual([{ n: 20 }]);
    // The first stream's samples are in a block and still rows: reads show each once.
    expect(points((await api<Series>(t, seriesPath, p.apiKey)).body)).toEqual(before);

    // A resent batch stores nothing again; new samples, late, for a compacted and an uncompacted stream, are stored.
    expect(await send(socket, batches[1]!)).toMatchObject({ ok: true, stored: 0 });
    expect(await send(socket, { n: 2, t0, s: [row(0, 20), row(2, 20)] })).toMatchObject({ ok: true, stored: 2 });
    const withLate = points((await api<Series>(t, seriesPath, p.apiKey)).body);
    expect(withLate).toHaveLength(62);
    // The slice's trigger noted the two streams that received rows late (the resent batch added none).
    const noted = await t.db.pool.query<{ id: number }>('SELECT id FROM compaction_late WHERE partition = $1 ORDER BY id', [slice]);
    const ids = await t.db.pool.query<{ id: number }>('SELECT id FROM stream WHERE ssrc IN (10, 12) ORDER BY id');
    expect(noted.rows).toEqual(ids.rows);

    const done = await compactSamples(t.db, { chunkIds: 1 });
    expect(done).toContainEqual({ partition: slice, rows: 62 });
    expect(await inProgress()).toEqual([]);
    expect(points((await api<Series>(t, seriesPath, p.apiKey)).body)).toEqual(withLate);
    const stored = await t.db.pool.query<{ n: number }>('SELECT sum(n)::int AS n FROM stream_block');
    expect(stored.rows[0]!.n).toBe(62);
    const left = await t.db.pool.query('SELECT 1 FROM pg_class WHERE relname = $1', [slice]);
    expect(left.rows).toEqual([]);
    socket.disconnect();
  });
});
