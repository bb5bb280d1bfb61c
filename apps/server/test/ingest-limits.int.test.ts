import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_PER_SOCKET, WINDOW_S } from '../src/ingest/limits.js';
import type { ProjectInfo } from '@rtcscope/protocol';
import type { Socket } from 'socket.io-client';
import { api, handshake, ingestSocket, runAdmin, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(3, { projectIngestLimit: 50_000, trustProxy: 1 });
});
afterAll(() => t.close());

const OWN_LIMIT = 1000;
const admin = (...args: string[]) => runAdmin(t.databaseUrl, ...args);
const t0 = Date.now() - 3_600_000;
/** A batch of `count` samples of one stream, from sequence number `first`, 1 ms apart. */
const batch = (n: number, first: number, count: number) => ({
  n,
  t0,
  ...(n === 0 ? { conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 }] } : {}),
  s: Array.from({ length: count }, (_, k) => [0, first + k, first + k, 100]),
});
const stored = async (callId: string) =>
  Number(
    (
      await t.db.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM stream_sample s JOIN stream st ON st.id = s.stream_id JOIN connection k ON k.id = st.connection_id
         JOIN participant p ON p.id = k.participant_id JOIN call c ON c.id = p.call_id WHERE c.external_id = $1`,
        [callId],
      )
    ).rows[0]!.n,
  );

describe('per-project ingest limits', () => {
  it("refuses a project's batches over its own limit, to be sent again, stores nothing of them, and leaves other projects alone", async () => {
    const [small, other] = t.projects;
    expect(await admin('set-ingest-limit', small!.projectId, String(OWN_LIMIT))).toEqual({
      code: 0,
      out: `project ${small!.projectId}: ingest limit 1000 samples a second on each node\n`,
    });

    const socket = await ingestSocket(t.url, handshake(small!, 'limited-call', 'alice'));
    const allowance = OWN_LIMIT * WINDOW_S;
    // The first batch's two declarations (a connection, a stream) count as two samples.
    expect(await send(socket, batch(0, 0, allowance / 2 - 2))).toMatchObject({ ok: true, stored: allowance / 2 - 2 });
    expect(await send(socket, batch(1, allowance / 2 - 2, allowance / 2))).toMatchObject({ ok: true, stored: allowance / 2 });
    const refused = await send(socket, batch(2, allowance - 2, 10));
    expect(refused).toMatchObject({ ok: false, n: 2, retry: true, error: { code: 'rate_limited' } });
    expect(JSON.stringify(refused)).toMatch(/limit of 1000 samples a second/);
    expect(await stored('limited-call')).toBe(allowance - 2);
    // Each project sees the limit that applies to it.
    expect((await api<ProjectInfo>(t, '/project', small!.apiKey)).body.ingestLimit).toBe(OWN_LIMIT);
    expect((await api<ProjectInfo>(t, '/project', other!.apiKey)).body.ingestLimit).toBe(50_000);

    // The deployment's limit (50,000 a second) applies to the other project, counted on its own.
    const free = await ingestSocket(t.url, handshake(other!, 'free-call', 'bob'));
    expect(await send(free, batch(0, 0, 5000))).toMatchObject({ ok: true, stored: 5000 });
    expect(await send(free, batch(1, 5000, 5000))).toMatchObject({ ok: true, stored: 5000 });
    expect(await send(free, batch(2, 10_000, 5000))).toMatchObject({ ok: true, stored: 5000 });
    socket.disconnect();
    free.disconnect();
  });

  it('counts every message against the limit, also those of events or metadata alone, and stores nothing of a refused one', async () => {
    const chatty = t.projects[2]!;
    expect((await admin('set-ingest-limit', chatty.projectId, String(OWN_LIMIT))).code).toBe(0);
    const socket = await ingestSocket(t.url, handshake(chatty, 'chatty-call', 'mallory'));
    const events = (n: number) => ({ n, t0: Date.now(), e: Array.from({ length: 500 }, (_, k) => [n * 500 + k, k, null, 'track-muted']) });
    const metadata = (n: number) => ({
      n,
      t0: Date.now(),
      metadata: { ...Object.fromEntries(Array.from({ length: 31 }, (_, k) => [`key${k}`, 'v'])), n },
    });
    // 19 batches of 500 events, 15 of 32 metadata keys and 20 that carry nothing: the 10,000 the window admits.
    for (let n = 0; n < 19; n++) expect(await send(socket, events(n))).toMatchObject({ ok: true });
    for (let n = 19; n < 34; n++) expect(await send(socket, metadata(n))).toMatchObject({ ok: true });
    for (let n = 34; n < 54; n++) expect(await send(socket, { n, t0: Date.now() })).toMatchObject({ ok: true });
    expect(await send(socket, { n: 54, t0: Date.now() })).toMatchObject({ ok: false, n: 54, retry: true, error: { code: 'rate_limited' } });
    expect(await send(socket, metadata(55))).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    socket.disconnect();
    const { rows } = await t.db.pool.query<{ events: number; n: number }>(
      `SELECT (SELECT count(*) FROM call_event e WHERE e.participant_id = p.id)::int AS events, (p.metadata->>'n')::int AS n
       FROM participant p JOIN call c ON c.id = p.call_id WHERE c.external_id = 'chatty-call'`,
    );
    expect(rows).toEqual([{ events: 19 * 500, n: 33 }]);
  });

  it(
    "refuses a project's connections past what its limit admits, asking them to come back, and frees those that close",
    { timeout: 60_000 },
    async () => {
      const [small, other] = t.projects;
      expect((await admin('set-ingest-limit', small!.projectId, String(OWN_LIMIT))).code).toBe(0);
      const cap = OWN_LIMIT / SAMPLES_PER_SOCKET;
      const open = [];
      for (let k = 0; k < cap; k += 50) {
        open.push(
          ...(await Promise.all(
            // From many addresses behind the proxy: one address may hold only SOCKETS_PER_ADDRESS.
            Array.from({ length: 50 }, (_, j) =>
              ingestSocket(t.url, handshake(small!, 'crowded-call', `p${k + j}`), { 'x-forwarded-for': `198.51.100.${(k + j) % 100}` }),
            ),
          )),
        );
      }
      const refusal = await ingestSocket(t.url, handshake(small!, 'crowded-call', 'one-too-many')).then(
        () => null,
        (err: Error & { data?: unknown }) => ({ message: err.message, data: err.data }),
      );
      expect(refusal).toEqual({
        message: expect.stringMatching(/^the project has 500 SDK connections to this server/),
        data: { status: 429, code: 'too_many_connections' },
      });
      // Another project is counted on its own.
      const elsewhere = await ingestSocket(t.url, handshake(other!, 'roomy-call', 'bob'));
      elsewhere.disconnect();

      open.pop()!.disconnect();
      // Once the server has seen it close, there is room for one more.
      let next: Socket | null = null;
      await expect
        .poll(async () => (next = await ingestSocket(t.url, handshake(small!, 'crowded-call', 'next')).catch(() => null)))
        .not.toBeNull();
      for (const socket of [...open, next!]) socket.disconnect();
    },
  );
});
