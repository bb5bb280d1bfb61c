import { mean } from '@rtcscope/metrics';
import { SAMPLE_HEAD, type Series, streamFieldIndex } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpEndedCalls } from '../src/samples/rollup.js';
import { sweep } from '../src/calls/sweep.js';
import { api, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  // The calls here are an hour old: the server's own sweeper, which would end them at once, waits two
  // hours, so that a test sees its call live before it ends it (`sweep`) itself.
  t = await startTestServer(1, { callIdleTimeoutS: 7200 });
});
afterAll(() => t.close());

const KBPS = SAMPLE_HEAD.length + streamFieldIndex('kbps');
const HEIGHT = SAMPLE_HEAD.length + streamFieldIndex('height');

/**
 * 5 minutes of one video stream at 1 Hz, kbps = second, height 180 then 360 after 2:30, ended an hour ago;
 * `beforeEnd` looks at it while it is still live, before the test's own sweep ends it.
 */
async function storeEndedCall(callId: string, beforeEnd: (t0: number) => Promise<void> = async () => {}): Promise<number> {
  const t0 = Date.now() - 3_600_000 - ((Date.now() - 3_600_000) % 10_000);
  const socket = await ingestSocket(t.url, handshake(t.projects[0]!, callId, 'a'));
  const rows = [...Array(300).keys()].map((k) => {
    const row: (number | null)[] = [0, k, k * 1000];
    row[KBPS] = k;
    row[HEIGHT] = k < 150 ? 180 : 360;
    return row;
  });
  expect(
    await send(socket, {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 7 }],
      s: rows,
    }),
  ).toMatchObject({ ok: true });
  socket.disconnect();
  await beforeEnd(t0);
  await sweep(t.db.pool, 2);
  return t0;
}

describe('rollups of ended calls', () => {
  it('averages every 10 s once the call ended, and long ranges are read from them', async () => {
    const key = t.projects[0]!.apiKey;
    // Before it is rolled up: raw samples, in the 15 s buckets asked for.
    const t0 = await storeEndedCall('rolled', async (start) => {
      const before = (await api<Series>(t, `/calls/rolled/series?from=${start}&to=${start + 299_000}&maxPoints=20`, key)).body;
      expect(before.bucketMs).toBe(15_000);
    });

    // The server's own sweeper rolls ended calls up every second too: whichever gets there first, the call is rolled up once.
    await rollUpEndedCalls(t.db.pool);
    const rolled = await t.db.pool.query<{ at: Date | null }>(`SELECT rolled_up_at AS at FROM call WHERE external_id = 'rolled'`);
    expect(rolled.rows[0]!.at).not.toBeNull();
    expect(await count(t.db, 'stream_rollup')).toBe(30);
    const { rows } = await t.db.pool.query<{ n: number; kbps: number; height: number }>(
      `SELECT n, kbps, height FROM stream_rollup ORDER BY ts LIMIT 1 OFFSET 15`,
    );
    expect(rows[0]).toEqual({ n: 10, kbps: mean([150, 151, 152, 153, 154, 155, 156, 157, 158, 159])!, height: 360 });
    expect(await rollUpEndedCalls(t.db.pool)).toBe(0);

    // 5 minutes in at most 20 points: 15 s buckets wanted, served from the rollups as 20 s buckets.
    const after = (await api<Series>(t, '/calls/rolled/series?maxPoints=20', key)).body;
    expect(after.bucketMs).toBe(20_000);
    const kbps = after.streams.map((p) => ({ at: (p.ts - t0) / 1000, kbps: p.v[KBPS - 3] }));
    const whole = kbps.filter((p) => p.at >= 0 && p.at <= 260);
    expect(whole.length).toBeGreaterThan(10);
    for (const p of whole) {
      // Every 20 s bucket of a 10 s-aligned call holds exactly two rollups: their mean is the raw mean.
      const start = Math.ceil(p.at / 10) * 10;
      expect(p.kbps).toBeCloseTo(mean([...Array(20).keys()].map((k) => start + k))!, 3);
    }
    // At the rollups' own resolution they are served as they are.
    const tens = (await api<Series>(t, '/calls/rolled/series?maxPoints=30', key)).body;
    expect(tens.bucketMs).toBe(10_000);
    expect(tens.streams.map((p) => p.v[KBPS - 3])).toEqual([...Array(30).keys()].map((k) => expect.closeTo(10 * k + 4.5, 3)));
    // Short ranges still come from the raw samples at full resolution.
    const raw = (await api<Series>(t, `/calls/rolled/series?from=${t0}&to=${t0 + 60_000}`, key)).body;
    expect(raw.bucketMs).toBe(1000);
    expect(raw.streams).toHaveLength(61);
  });

  it('rolls a reopened call up again when it ends again, replacing its rows', async () => {
    const t0 = await storeEndedCall('reopened');
    await rollUpEndedCalls(t.db.pool);
    const rollups = await count(t.db, 'stream_rollup');
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'reopened', 'a', 's2'));
    const late: (number | null)[] = [0, 0, 0];
    late[KBPS] = 1000;
    await send(socket, {
      n: 0,
      t0: t0 + 5000,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 8 }],
      s: [late],
    });
    socket.disconnect();
    await sweep(t.db.pool, 2);
    expect(await rollUpEndedCalls(t.db.pool)).toBe(1);
    expect(await count(t.db, 'stream_rollup')).toBe(rollups + 1);
  });
});
