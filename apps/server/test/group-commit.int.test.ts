import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitter } from '../src/ingest/group-commit.js';
import type { BatchWrite } from '../src/ingest/writer.js';
import { count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('group commit', () => {
  it('acks each of many concurrent batches with its own stored count', async () => {
    const p = t.projects[0]!;
    const sockets = await Promise.all(Array.from({ length: 20 }, (_, k) => ingestSocket(t.url, handshake(p, `group-${k % 5}`, `p${k}`))));
    const t0 = Date.now() - 10_000;
    const acks = await Promise.all(
      sockets.map((s, k) =>
        send(s, {
          n: 0,
          t0,
          conns: [{ i: 0, key: 'pc1' }],
          streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: k }],
          s: Array.from({ length: k + 1 }, (_, q) => [0, q, q * 1000, 100 + k]),
        }),
      ),
    );
    expect(acks.map((a) => (a.ok ? a.stored : -1))).toEqual(sockets.map((_, k) => k + 1));
    const again = await Promise.all(sockets.map((s) => send(s, { n: 1, t0, s: [[0, 0, 0, 1]] })));
    expect(again.map((a) => (a.ok ? a.stored : -1))).toEqual(sockets.map(() => 0));
    for (const s of sockets) s.disconnect();
    const { rows } = await t.db.pool.query(`SELECT external_id FROM call WHERE external_id LIKE 'group-%' ORDER BY 1`);
    expect(rows).toHaveLength(5);
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
    const results = await Promise.allSettled([committer.write(write(1)), committer.write(write(2)), committer.write(write(3, 987_654)), committer.write(write(4))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await count(t.db, 'connection_sample')).toBe(before + 3);
  });
});
