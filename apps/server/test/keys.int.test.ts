import type { ApiKeyCreated, ApiKeyList, ProjectInfo } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { api, apiSend, dashboardSocket, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

describe("a project's keys", () => {
  it('makes, lists and revokes API keys; a revoked key stops working at once', async () => {
    const p = t.projects[0]!;
    const listed = await api<ApiKeyList>(t, '/project/keys', p.apiKey);
    expect(listed.body.keys).toEqual([
      {
        id: expect.any(Number),
        name: 'default',
        scopes: ['ingest', 'read', 'lab', 'admin'],
        createdAt: expect.any(Number),
        lastUsedAt: expect.any(Number),
        current: true,
      },
    ]);

    // Read only unless named: it may list calls, not keys.
    const readOnly = await apiSend<ApiKeyCreated>(t, 'POST', '/project/keys', p.apiKey, { name: '  reader  ' });
    expect(readOnly.status).toBe(201);
    expect(readOnly.body).toMatchObject({
      key: { name: 'reader', scopes: ['read'], lastUsedAt: null, current: false },
      apiKey: expect.stringMatching(/^rk_/),
    });
    expect((await api(t, '/calls', readOnly.body.apiKey)).status).toBe(200);
    expect((await api(t, '/project/keys', readOnly.body.apiKey)).status).toBe(403);
    expect((await apiSend(t, 'DELETE', `/project/keys/${readOnly.body.key.id}`, p.apiKey)).status).toBe(204);

    const made = await apiSend<ApiKeyCreated>(t, 'POST', '/project/keys', p.apiKey, { name: 'grafana', scopes: ['read', 'admin'] });
    expect(made.body.key.scopes).toEqual(['read', 'admin']);
    const second = made.body.apiKey;
    expect((await api(t, '/calls', second)).status).toBe(200);
    const seen = await api<ApiKeyList>(t, '/project/keys', second);
    expect(seen.body.keys.map((k) => [k.name, k.current, k.lastUsedAt !== null])).toEqual([
      ['default', false, true],
      ['grafana', true, true],
    ]);
    // The key itself is never listed, nor its hash.
    expect(JSON.stringify(seen.body)).not.toContain(second.slice(3));

    // Revoked with the other key, after this node has remembered it: refused at once all the same,
    // and a dashboard open with it is ended; one open with the other key is not.
    const revokedDashboard = await dashboardSocket(t, second, { calls: true });
    const ended = new Promise<string>((resolve) => revokedDashboard.once('disconnect', resolve));
    const keptDashboard = await dashboardSocket(t, p.apiKey, { calls: true });
    expect((await apiSend(t, 'DELETE', `/project/keys/${made.body.key.id}`, p.apiKey)).status).toBe(204);
    expect((await api(t, '/calls', second)).status).toBe(401);
    expect(await ended).toBe('io server disconnect');
    expect(keptDashboard.connected).toBe(true);
    keptDashboard.disconnect();
    expect((await api<ApiKeyList>(t, '/project/keys', p.apiKey)).body.keys.map((k) => k.name)).toEqual(['default']);
  });

  it("refuses to revoke the last key, another project's key, or a key made with a bad name, and changes nothing", async () => {
    const [p, other] = t.projects as [(typeof t.projects)[0], (typeof t.projects)[0]];
    const own = (await api<ApiKeyList>(t, '/project/keys', p.apiKey)).body.keys[0]!;
    const last = await apiSend<{ message: string }>(t, 'DELETE', `/project/keys/${own.id}`, p.apiKey);
    expect(last.status).toBe(409);
    expect(last.body.message).toMatch(/last API key and its organization has no members yet/);
    expect((await apiSend(t, 'DELETE', `/project/keys/${own.id}`, other.apiKey)).status).toBe(404);
    expect((await apiSend(t, 'DELETE', '/project/keys/abc', p.apiKey)).status).toBe(400);
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'ok', extra: 1 },
      { name: 'ok', scopes: [] },
      { name: 'ok', scopes: ['root'] },
      { name: 'ok', scopes: ['read', 'read'] },
    ]) {
      expect((await apiSend(t, 'POST', '/project/keys', p.apiKey, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await api<ApiKeyList>(t, '/project/keys', p.apiKey)).body.keys).toHaveLength(1);
    expect((await api(t, '/calls', p.apiKey)).status).toBe(200);
  });

  it('replaces the ingest key: SDKs with the old one are refused at once, and those connected are ended on every node', async () => {
    const p = t.projects[1]!;
    const before = await ingestSocket(t.url, handshake(p, 'rotating-call', 'alice'));
    expect(await send(before, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
    // One more on another node, which hears of the change through the database.
    const elsewhere = await ingestSocket(await t.addNode(), handshake(p, 'rotating-call', 'dave', 's2'));
    const ended = (socket: Socket) => new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    const endings = Promise.all([ended(before), ended(elsewhere)]);

    const replaced = await apiSend<ProjectInfo>(t, 'POST', '/project/ingest-key', p.apiKey);
    expect(replaced.status).toBe(200);
    expect(replaced.body.ingestKey).toMatch(/^ik_/);
    expect(replaced.body.ingestKey).not.toBe(p.ingestKey);
    expect((await api<ProjectInfo>(t, '/project', p.apiKey)).body.ingestKey).toBe(replaced.body.ingestKey);

    expect(await endings).toEqual(['io server disconnect', 'io server disconnect']);
    await expect(ingestSocket(t.url, handshake(p, 'rotating-call', 'bob'))).rejects.toMatchObject({ data: { status: 401 } });
    const after = await ingestSocket(t.url, handshake({ ...p, ingestKey: replaced.body.ingestKey }, 'rotating-call', 'carol'));
    expect(await send(after, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 22]] })).toMatchObject({ ok: true });
    after.disconnect();
  });
});
