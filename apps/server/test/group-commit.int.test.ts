import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../src/ingest/group-commit.js';
import type { BatchWrite } from '../src/samples/write.js';
import { count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** Sends each socket its batch, all at once; the stored count each was acked with (-1: refused). */
async function storedCounts(sockets: Socket[], batchOf: (k: number) => Record<string, unknown>): Promise<number[]> {
  const acks = await Promise.all(sockets.map((s, k) => send(s, batchOf(k))));
  return acks.map((a) => (a.ok ? a.stored : -1));
}

describe('group commit', () => {
  it('acks each of many concurrent batches with its own stored count', async () => {
    const p = t.projects[0]!;
    const sockets = await Promise.all(Array.from({ length: 20 }, (_, k) => ingestSocket(t.url, handshake(p, `group-${k % 5}`, `p${k}`))));
    const t0 = Date.now() - 10_000;
    const stored = await storedCounts(sockets, (k) => ({
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: k }],
      s: Array.from({ length: k + 1 }, (_, q) => [0, q, q * 1000, 100 + k]),
    }));
    expect(stored).toEqual(sockets.map((_, k) => k + 1));
    expect(await storedCounts(sockets, () => ({ n: 1, t0, s: [[0, 0, 0, 1]] }))).toEqual(sockets.map(() => 0));
    for (const s of sockets) s.disconnect();
    const { rows } = await t.db.pool.query(`SELECT external_id FROM call WHERE external_id LIKE 'group-%' ORDER BY 1`);
    expect(rows).toHaveLength(5);
  });

  it('registers sessions that start together, several of one call or participant, each under its own ids', async () => {
    const p = t.projects[0]!;
    // 6 calls × 3 participants, the first participant of each call with two sessions (a reloaded page).
    const auths = Array.from({ length: 24 }, (_, k) => ({
      ...handshake(p, `together-${k % 6}`, `p${Math.floor(k / 6) % 3}`, k < 18 ? 's1' : 's2'),
      metadata: { [`from${k}`]: k },
    }));
    const sockets = await Promise.all(auths.map((a) => ingestSocket(t.url, a)));
    const t0 = Date.now() - 5_000;
    const stored = await storedCounts(sockets, (k) => ({
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [
        { i: 0, conn: 0, direction: 'out', kind: 'audio', ssrc: 1 },
        { i: 1, conn: 0, direction: 'in', kind: 'video', ssrc: 2 },
      ],
      s: [
        [0, 0, 0, k],
        [1, 0, 0, 1000 + k],
      ],
      c: [[0, 0, 0, 1]],
    }));
    expect(stored).toEqual(sockets.map(() => 3));
    for (const s of sockets) s.disconnect();
    const { rows } = await t.db.pool.query<{
      call: string;
      participants: number;
      connections: number;
      kbps: number[];
      metadata: Record<string, number>;
    }>(
      `SELECT c.external_id AS call, count(DISTINCT pa.id)::int AS participants, count(DISTINCT co.id)::int AS connections,
              array_agg(ss.kbps ORDER BY ss.kbps) AS kbps, c.metadata
       FROM call c JOIN participant pa ON pa.call_id = c.id JOIN connection co ON co.participant_id = pa.id
       JOIN stream st ON st.connection_id = co.id JOIN stream_sample ss ON ss.stream_id = st.id
       WHERE c.external_id LIKE 'together-%' GROUP BY c.id ORDER BY 1`,
    );
    expect(rows.map((r) => [r.call, r.participants, r.connections])).toEqual(Array.from({ length: 6 }, (_, c) => [`together-${c}`, 3, 4]));
    // Every sample under the stream its own session declared: call c holds sessions c, c+6, c+12, c+18.
    for (const [c, r] of rows.entries()) {
      const ks = [c, c + 6, c + 12, c + 18];
      expect(r.kbps).toEqual([...ks, ...ks.map((k) => 1000 + k)]);
      expect(r.metadata).toEqual(Object.fromEntries(ks.map((k) => [`from${k}`, k])));
    }
  });

  it('fails only the bad batch of a group, storing the others', async () => {
    const committer = new GroupCommitter(t.db.pool);
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'group-poison', 'a'));
    await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    socket.disconnect();
    const { rows } = await t.db.pool.query<{ call_id: number; id: number; project_id: string }>(
      "SELECT p.call_id, p.id, p.project_id FROM participant p JOIN call c ON c.id = p.call_id WHERE c.external_id = 'group-poison'",
    );
    const { call_id: callDbId, id: participantDbId, project_id: projectId } = rows[0]!;
    const write = (seq: number, call = callDbId): BatchWrite => ({
      projectId,
      callDbId: call,
      participantDbId,
      session: 'direct',
      streamRows: [],
      connectionRows: [{ index: 999_000 + seq, seq, ts: Date.now(), values: [1, null, null, null, null] }],
      streamRoles: [],
      // An event of a call that does not exist violates a foreign key: the whole statement fails.
      events: [{ connectionDbId: null, seq, ts: Date.now(), type: 'metadata', detail: null }],
      left: false,
      mayRepeat: false,
      metadata: null,
    });
    const before = await count(t.db, 'connection_sample');
    const results = await Promise.allSettled([
      committer.write(write(1)),
      committer.write(write(2)),
      committer.write(write(3, 987_654)),
      committer.write(write(4)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await count(t.db, 'connection_sample')).toBe(before + 3);
  });
});
