import type { NewProject } from '../src/identity/keys/keys.js';
import { SLICE_MS } from '../src/samples/partitions.js';
import { compactSamples } from '../src/samples/compaction.js';
import { rollUpEndedCalls } from '../src/samples/rollup.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCreated } from '@rtcscope/experiments';
import { io } from 'socket.io-client';
import { api, apiSend, dashboardSocket, handshake, ingestSocket, runAdmin, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const SAMPLE_TABLES = ['stream_sample', 'stream_block', 'stream_rollup', 'connection_sample', 'connection_block', 'connection_rollup'];

/** Rows of each sample table that belong to `project`, through its streams and connections. */
async function sampleRows(project: NewProject): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of SAMPLE_TABLES) {
    const kind = table.startsWith('stream') ? 'stream' : 'connection';
    const { rows } = await t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE ${kind}_id IN (SELECT id FROM ${kind} WHERE project_id = $1)`,
      [project.projectId],
    );
    out[table] = rows[0]!.n;
  }
  return out;
}

/** A call of `project` with samples in a past slice (compacted into blocks), in the current one (rows), and rolled up. */
async function storeCall(project: NewProject, callId: string): Promise<void> {
  const socket = await ingestSocket(t.url, handshake(project, callId, 'alice'));
  const past = Math.floor((Date.now() - 2 * SLICE_MS) / SLICE_MS) * SLICE_MS;
  const declare = { conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 7 }] };
  expect(
    await send(socket, {
      n: 0,
      t0: past,
      ...declare,
      s: [
        [0, 0, 0, 900],
        [0, 1, 1000, 910],
      ],
      c: [[0, 0, 0, 20]],
    }),
  ).toMatchObject({ ok: true });
  expect(await send(socket, { n: 1, t0: Date.now() - 1000, s: [[0, 2, 0, 920]], c: [[0, 1, 0, 21]] })).toMatchObject({ ok: true });
  socket.disconnect();
}

describe('deleting a project (admin.ts delete-project)', () => {
  it(
    'deletes the project and its samples in every form, tells every open socket, and leaves other projects alone',
    { timeout: 60_000 },
    async () => {
      const [gone, kept] = t.projects as [NewProject, NewProject];
      await storeCall(gone, 'call-a');
      await storeCall(kept, 'call-b');
      await compactSamples(t.db);
      await t.db.pool.query('UPDATE call SET ended_at = last_seen_at');
      await rollUpEndedCalls(t.db.pool);
      const keptBefore = await sampleRows(kept);
      const goneBefore = await sampleRows(gone);
      for (const table of SAMPLE_TABLES) expect(goneBefore[table], table).toBeGreaterThan(0);

      // Open before the deletion, and the API key remembered by the server's key cache.
      const sdk = await ingestSocket(t.url, handshake(gone, 'call-c', 'bob'));
      expect(await send(sdk, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
      const sdkEnded = new Promise<string>((resolve) => sdk.once('disconnect', resolve));
      const dashboard = await dashboardSocket(t, gone.apiKey, { calls: true });
      const dashboardEnded = new Promise<string>((resolve) => dashboard.once('disconnect', resolve));
      const keptDashboard = await dashboardSocket(t, kept.apiKey, { calls: true });
      const { body: created } = await apiSend<AgentCreated>(t, 'POST', '/lab/agents', gone.apiKey, { name: 'lab-1' });
      expect((await apiSend(t, 'POST', '/lab/campaigns', gone.apiKey, { scenario: 'static-loss' })).status).toBe(201);
      const agent = io(`${t.url}/agent`, { auth: { token: created.token }, transports: ['websocket'] });
      await new Promise<void>((resolve) => agent.once('connect', () => resolve()));
      const agentEnded = new Promise<string>((resolve) => agent.once('disconnect', resolve));
      expect((await api(t, '/calls', gone.apiKey)).status).toBe(200);

      const deleted = await runAdmin(t.databaseUrl, 'delete-project', gone.projectId, gone.name);
      expect(deleted.code).toBe(0);
      expect(deleted.out).toMatch(
        new RegExp(`^project ${gone.name} \\(${gone.projectId}\\) deleted, with its 2 calls; deleting its samples…$`, 'm'),
      );
      expect(deleted.out).toMatch(/^\d+ rows of samples deleted; waiting 5 s/m);
      expect(deleted.out).toMatch(/^done: 0 rows of samples written meanwhile deleted$/m);

      // At once on this node, well before its key cache (a minute) would have expired.
      expect((await api(t, '/calls', gone.apiKey)).status).toBe(401);
      expect(await dashboardEnded).toBe('io server disconnect');
      expect(await agentEnded).toBe('io server disconnect');
      expect(keptDashboard.connected).toBe(true);
      keptDashboard.disconnect();
      // The SDK's socket is ended at once too: its key opens nothing now.
      expect(await sdkEnded).toBe('io server disconnect');

      expect(await sampleRows(gone)).toEqual(Object.fromEntries(SAMPLE_TABLES.map((table) => [table, 0])));
      for (const [table, column] of [
        ['project', 'id'],
        ...['api_key', 'call', 'participant', 'connection', 'stream', 'call_event', 'lab_agent', 'lab_campaign', 'lab_run'].map((x) => [
          x,
          'project_id',
        ]),
      ]) {
        const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [
          gone.projectId,
        ]);
        expect(rows[0]!.n, table).toBe(0);
      }
      // No sample row is left without its stream or connection, whoever owned it.
      const { rows: orphans } = await t.db.pool.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM stream_sample WHERE stream_id NOT IN (SELECT id FROM stream))
            + (SELECT count(*) FROM connection_sample WHERE connection_id NOT IN (SELECT id FROM connection)) AS n`,
      );
      expect(Number(orphans[0]!.n)).toBe(0);

      expect(await sampleRows(kept)).toEqual(keptBefore);
      expect((await api<{ calls: unknown[] }>(t, '/calls', kept.apiKey)).body.calls).toHaveLength(1);
    },
  );

  it('deletes nothing unless the id and the name match, and says why', { timeout: 60_000 }, async () => {
    const kept = t.projects[1]!;
    const before = await sampleRows(kept);
    const refused = await Promise.all([
      runAdmin(t.databaseUrl, 'delete-project', kept.projectId, 'project 0'),
      runAdmin(t.databaseUrl, 'delete-project', 'acme', kept.name),
      runAdmin(t.databaseUrl, 'delete-project', kept.projectId),
    ]);
    expect(refused.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(refused[0]!.out).toBe(
      `rtcscope-admin: no project ${kept.projectId} named "project 0": nothing was deleted (list-projects shows ids and names)\n`,
    );
    expect(refused[1]!.out).toMatch(/"acme" is not a project id/);
    expect(refused[2]!.out).toMatch(/missing required argument 'name'/);
    expect(await sampleRows(kept)).toEqual(before);
    expect((await api(t, '/calls', kept.apiKey)).status).toBe(200);
  });
});
