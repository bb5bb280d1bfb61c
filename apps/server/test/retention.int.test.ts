import type { ProjectInfo } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_TIERS, tierRange } from '../src/samples/retention-tiers.js';
import { compactSamples } from '../src/samples/compaction.js';
import { dropExpired } from '../src/samples/retention.js';
import { api, apiSend, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const DAY = 86_400_000;

async function storeOne(project: TestServer['projects'][number], callId: string, ts: number): Promise<number> {
  const socket = await ingestSocket(t.url, handshake(project, callId, 'a'));
  const ack = await send(socket, {
    n: 0,
    t0: ts,
    conns: [{ i: 0, key: 'pc1' }],
    streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 }],
    s: [[0, 0, 0, 500]],
  });
  expect(ack).toMatchObject({ ok: true, stored: 1 });
  socket.disconnect();
  const { rows } = await t.db.pool.query<{ id: number }>(
    `SELECT st.id FROM stream st JOIN connection c ON c.id = st.connection_id JOIN participant p ON p.id = c.participant_id JOIN call ca ON ca.id = p.call_id WHERE ca.external_id = $1`,
    [callId],
  );
  return rows[0]!.id;
}

const blocksOf = async (streamId: number) =>
  (
    await t.db.pool.query<{ part: string }>('SELECT tableoid::regclass::text AS part FROM stream_block WHERE stream_id = $1', [streamId])
  ).rows.map((r) => r.part);

describe('retention per project', () => {
  it('keeps the tier order of the ids in step between the code and the database', async () => {
    for (const [tier, days] of RETENTION_TIERS.entries()) {
      const { rows } = await t.db.pool.query<{ base: number }>('SELECT rtcscope_id_base($1) AS base', [days]);
      expect(rows[0]!.base).toBe(tierRange(tier).from);
    }
  });

  it('is set over the API, and only to a tier', async () => {
    const key = t.projects[0]!.apiKey;
    expect((await api<ProjectInfo>(t, '/project', key)).body.retentionDays).toBe(30);
    expect((await apiSend<ProjectInfo>(t, 'PATCH', '/project', key, { retentionDays: 7 })).body.retentionDays).toBe(7);
    const bad = await apiSend<{ message: string }>(t, 'PATCH', '/project', key, { retentionDays: 10 });
    expect(bad.status).toBe(400);
    expect((await api<ProjectInfo>(t, '/project', t.projects[1]!.apiKey)).body.retentionDays).toBe(30);
  });

  it("drops a short-retention project's old days whole, and leaves the others' rows", async () => {
    const [short, long] = t.projects as [TestServer['projects'][number], TestServer['projects'][number]];
    const ts = Date.now() - DAY;
    const day = new Date(ts).toISOString().slice(0, 10).replaceAll('-', '');
    const shortStream = await storeOne(short, 'short-lived', ts);
    const longStream = await storeOne(long, 'long-lived', ts);
    expect(shortStream).toBeGreaterThanOrEqual(tierRange(1).from);
    expect(longStream).toBeLessThan(tierRange(0).to);
    // A day old, the samples are blocks, in their tier's partition of the day.
    await compactSamples(t.db);
    expect(await blocksOf(shortStream)).toEqual([`stream_block_p${day}_t1`]);
    expect(await blocksOf(longStream)).toEqual([`stream_block_p${day}_t0`]);

    // Nothing is due yet.
    expect(await dropExpired(t.db.pool)).toEqual([]);
    // Eight days on, the 7-day tier's day is gone; the 30-day tier's and every rollup are kept.
    const dropped = await dropExpired(t.db.pool, ts + 8 * DAY);
    expect(dropped).toContain(`stream_block_p${day}_t1`);
    expect(dropped).toContain(`connection_block_p${day}_t1`);
    expect(dropped.some((d) => d.includes('rollup'))).toBe(false);
    expect(dropped.some((d) => d.endsWith('_t0'))).toBe(false);
    expect(await blocksOf(shortStream)).toEqual([]);
    expect(await blocksOf(longStream)).toEqual([`stream_block_p${day}_t0`]);
    // The calls themselves stay listed, with their means.
    expect((await api<{ calls: { id: string }[] }>(t, '/calls', short.apiKey)).body.calls.map((c) => c.id)).toContain('short-lived');

    // A year and more on, every tier of that day is gone, the day tables too.
    const all = await dropExpired(t.db.pool, ts + 800 * DAY);
    expect(all).toContain(`stream_block_p${day}`);
    expect(all).toContain(`stream_rollup_p${day}`);
    expect(await blocksOf(longStream)).toEqual([]);
  });
});
