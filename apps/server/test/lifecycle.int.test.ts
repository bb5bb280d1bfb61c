import type { CallList } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../src/calls/sweep.js';
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

  it("moves a call's last-seen time in 10-second steps, and ends it at its last participant's exact time", async () => {
    // Its own server, whose sweeper leaves these minute-old samples alone until the test sweeps.
    const u = await startTestServer(1, { callIdleTimeoutS: 3600 });
    try {
      const p = u.projects[0]!;
      const lastSeen = async () => (await api<CallList>(u, '/calls', p.apiKey)).body.calls.find((c) => c.id === 'step-call')?.lastSeenAt;
      const s = await ingestSocket(u.url, handshake(p, 'step-call', 'a'));
      const t0 = Date.now() - 60_000;
      const at = (n: number, dt: number) => send(s, { n, t0, conns: [{ i: 0, key: 'pc1' }], c: [[0, n, dt, 1]] });
      await at(0, 0);
      await at(1, 3_000);
      expect(await lastSeen()).toBe(t0);
      await at(2, 15_000);
      expect(await lastSeen()).toBe(t0 + 15_000);
      await at(3, 20_000);
      expect(await lastSeen()).toBe(t0 + 15_000);
      s.disconnect();
      await sweep(u.db.pool, 2);
      expect(await lastSeen()).toBe(t0 + 20_000);
    } finally {
      await u.close();
    }
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
    // A sentinel: a new call, announced to the list after every batch above was pushed, arrives after
    // any activity they caused (a socket's messages arrive in order).
    const changed = new Promise((resolve) =>
      dashboard.on('calls-changed', (m: { callId: string }) => m.callId === 'sentinel-call' && resolve(m)),
    );
    const sentinel = await ingestSocket(t.url, handshake(p, 'sentinel-call', 'a'));
    await send(sentinel, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] });
    await changed;
    sentinel.disconnect();
    expect(activity).toEqual(['busy-call']);
    s.disconnect();
    dashboard.disconnect();
  });
});
