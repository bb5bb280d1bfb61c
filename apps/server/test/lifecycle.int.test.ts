import type { CallList } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../src/lifecycle/sweeper.js';
import { api, dashboardSocket, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(1, { callIdleTimeoutS: 2 });
});
afterAll(() => t.close());

const state = async (callId: string) =>
  (await api<CallList>(t, '/calls', t.projects[0]!.apiKey)).body.calls.find((c) => c.id === callId)?.state;

describe('call lifecycle', () => {
  it('starts a call with its first sample, not with a bare connection', async () => {
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'no-samples-yet', 'a'));
    expect(await state('no-samples-yet')).toBeUndefined();
    await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    expect(await state('no-samples-yet')).toBe('live');
    socket.disconnect();
  });

  it('ends a call when every participant said goodbye', async () => {
    const p = t.projects[0]!;
    const a = await ingestSocket(t.url, handshake(p, 'bye-call', 'a'));
    const b = await ingestSocket(t.url, handshake(p, 'bye-call', 'b'));
    for (const s of [a, b]) await send(s, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    await send(a, { n: 1, t0: Date.now(), bye: true });
    await sweep(t.db.pool, 2);
    expect(await state('bye-call')).toBe('live');
    await send(b, { n: 1, t0: Date.now(), bye: true });
    await sweep(t.db.pool, 2);
    expect(await state('bye-call')).toBe('ended');
    a.disconnect();
    b.disconnect();
  });

  it('ends a silent call after the idle timeout and tells live dashboards', async () => {
    const p = t.projects[0]!;
    const dashboard = await dashboardSocket(t, p.apiKey, { calls: true });
    const changes: string[] = [];
    dashboard.on('calls-changed', (m: { callId: string }) => changes.push(m.callId));
    const s = await ingestSocket(t.url, handshake(p, 'silent-call', 'a'));
    await send(s, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    s.disconnect();
    expect(await state('silent-call')).toBe('live');
    await expect.poll(() => state('silent-call'), { timeout: 10_000, interval: 500 }).toBe('ended');
    await expect.poll(() => changes.filter((c) => c === 'silent-call').length, { timeout: 3000 }).toBeGreaterThanOrEqual(2);
    dashboard.disconnect();
  });

  it('tells the calls list a call is active at most every few seconds, not per batch', async () => {
    const p = t.projects[0]!;
    const dashboard = await dashboardSocket(t, p.apiKey, { calls: true });
    const activity: string[] = [];
    dashboard.on('activity', (m: { callId: string }) => activity.push(m.callId));
    const s = await ingestSocket(t.url, handshake(p, 'busy-call', 'a'));
    for (let n = 0; n < 6; n++) await send(s, { n, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, n, 0, 1]] });
    await new Promise((r) => setTimeout(r, 300));
    expect(activity).toEqual(['busy-call']);
    s.disconnect();
    dashboard.disconnect();
  });
});
