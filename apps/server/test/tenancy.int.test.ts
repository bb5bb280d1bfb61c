import type { CallList } from '@rtcscope/protocol';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, dashboardSocket, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
  for (const [k, p] of t.projects.entries()) {
    const socket = await ingestSocket(t.url, handshake(p, 'same-call-id', `user-${k}`));
    const ack = await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 10 + k]] });
    expect(ack.ok).toBe(true);
    socket.disconnect();
  }
});
afterAll(() => t.close());

describe('tenant isolation', () => {
  it("lists only the key's own project's calls, even under the same call id", async () => {
    const [a, b] = t.projects;
    const listA = await api<CallList>(t, '/calls', a!.apiKey);
    const listB = await api<CallList>(t, '/calls', b!.apiKey);
    expect(listA.body.calls.map((c) => c.participants)).toEqual([['user-0']]);
    expect(listB.body.calls.map((c) => c.participants)).toEqual([['user-1']]);
  });

  it('filters the calls a lab run made', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, { ...handshake(p, 'lab-made', 'p0'), metadata: { lab: true, scenario: 'bw-steps' } });
    await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    socket.disconnect();
    const lab = await api<CallList>(t, '/calls?lab=true', p.apiKey);
    expect(lab.body.calls.map((c) => [c.id, c.metadata.scenario])).toEqual([['lab-made', 'bw-steps']]);
    // Production's calls without the lab's (issue 60: `lab=false` returned them), whichever way it is asked.
    const ids = async (query: string) => (await api<CallList>(t, `/calls?${query}`, p.apiKey)).body.calls.map((c) => c.id).sort();
    expect(await ids('lab=false')).toEqual(['same-call-id']);
    expect(await ids('source=live')).toEqual(['same-call-id']);
    expect(await ids('source=lab')).toEqual(['lab-made']);
    expect(await ids('source=all')).toEqual(['lab-made', 'same-call-id']);
    expect(await ids('')).toEqual(['lab-made', 'same-call-id']);
  });

  it('answers 404 for a call id that exists only in another project', async () => {
    const socket = await ingestSocket(t.url, handshake(t.projects[1]!, 'only-in-b', 'x'));
    await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    socket.disconnect();
    for (const path of [
      '/calls/only-in-b',
      '/calls/only-in-b/series',
      '/calls/only-in-b/events',
      '/calls/only-in-b/fairness',
      '/calls/only-in-b/export.csv',
    ]) {
      expect((await api(t, path, t.projects[0]!.apiKey)).status).toBe(404);
    }
    expect((await api(t, '/calls/only-in-b', t.projects[1]!.apiKey)).status).toBe(200);
  });

  it('refuses a missing or unknown API key with 401', async () => {
    expect((await fetch(`${t.url}/api/v1/calls`)).status).toBe(401);
    expect((await api(t, '/calls', 'rk_not-a-key')).status).toBe(401);
    expect((await api(t, '/calls', t.projects[0]!.ingestKey)).status).toBe(401);
  });

  it('gives the REST body validation error with the field', async () => {
    const res = await api<{ message: string }>(t, '/calls?limit=100000', t.projects[0]!.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('limit');
  });

  it("never pushes one project's live points to another's dashboard", async () => {
    const [a, b] = t.projects;
    // Points flow only after the ingest below, so listening after subscribing misses nothing.
    const watcherB = await dashboardSocket(t, b!.apiKey, { callId: 'same-call-id', calls: true });
    const received: unknown[] = [];
    watcherB.on('points', (p) => received.push(p));
    const watcherA = await dashboardSocket(t, a!.apiKey, { callId: 'same-call-id' });
    const gotA = new Promise((resolve) => watcherA.once('points', resolve));

    const socket = await ingestSocket(t.url, handshake(a!, 'same-call-id', 'user-0', 's2'));
    await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 5]] });
    socket.disconnect();
    await gotA;
    // A sentinel: B's own call's points, sent after A's were pushed, reach B's dashboard after anything
    // of A's would have (a socket's messages arrive in order).
    const own = await ingestSocket(t.url, handshake(b!, 'same-call-id', 'user-1', 'sentinel'));
    await send(own, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 6]] });
    own.disconnect();
    await expect.poll(() => received.length).toBe(1);
    expect(received).toEqual([expect.objectContaining({ callId: 'same-call-id', participantId: 'user-1' })]);
    watcherA.disconnect();
    watcherB.disconnect();
  });

  it('refuses a live connection without a valid API key', async () => {
    const socket = io(`${t.url}/live`, { auth: { apiKey: 'rk_wrong' }, transports: ['websocket'], reconnection: false });
    const err = await new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    expect(err.message).toBe('sign in, or give an API key with the read scope');
    socket.close();
  });
});
