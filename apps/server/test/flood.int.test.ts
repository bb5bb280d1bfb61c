import type { AlertRule, WebhookEndpoint } from '@rtcscope/protocol';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFIED_PER_RULE } from '../src/alerts/evaluate.js';
import { apiSend, count, handshake, send, startTestServer, type TestServer } from './harness.js';
import { WebhookReceiver } from './webhook-receiver.js';

const LIVE_CALLS = 40;
const SOCKETS = 8;
const ATTEMPTS = 30;

let t: TestServer;
let receiver: WebhookReceiver;
const logs: string[] = [];
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t = await startTestServer(1, { projectLiveCalls: LIVE_CALLS, logs });
});
afterAll(async () => {
  await t?.close();
  await receiver?.stop();
});

/** One socket of a flood through the publishable key: a new call per connection, one batch each, as fast as it goes. */
async function flooder(k: number): Promise<{ started: number; refused: { code: string; message: string }[] }> {
  const project = t.projects[0]!;
  const refused: { code: string; message: string }[] = [];
  let started = 0;
  for (let i = 0; i < ATTEMPTS; i++) {
    const socket = io(`${t.url}/ingest`, {
      auth: handshake(project, `flood-${k}-${i}`, 'bot'),
      transports: ['websocket'],
      reconnection: false,
    });
    const outcome = await new Promise<{ code: string; message: string } | null>((resolve) => {
      socket.once('connect', () => resolve(null));
      socket.once('connect_error', (err) =>
        resolve({ code: (err as { data?: { code: string } }).data?.code ?? '?', message: err.message }),
      );
    });
    if (outcome) refused.push(outcome);
    else {
      const ack = await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] });
      if (ack.ok) started++;
    }
    socket.disconnect();
  }
  return { started, refused };
}

describe('a flood of calls through the publishable key (issue 32)', () => {
  it(
    'starts no more calls than the project may have live, pages once per rule past the first few, and logs no error',
    { timeout: 120_000 },
    async () => {
      const key = t.projects[0]!.apiKey;
      const hook = (
        await apiSend<WebhookEndpoint>(t, 'POST', '/alerts/endpoints', key, { url: receiver.url, format: 'json', enabled: true })
      ).body;
      const rule = (
        await apiSend<AlertRule>(t, 'POST', '/alerts/rules', key, {
          name: 'Stuck joining',
          enabled: true,
          condition: { kind: 'never-connected', afterS: 5 },
        })
      ).body;
      expect(rule.id).toBeTruthy();

      receiver.hold();
      const results = await Promise.all(Array.from({ length: SOCKETS }, (_, k) => flooder(k)));
      const started = results.reduce((n, r) => n + r.started, 0);
      const refused = results.flatMap((r) => r.refused);
      // Each handshake between recounts may pass: a burst of 8 at a time, recounted every 100 ms.
      expect(started).toBeGreaterThanOrEqual(LIVE_CALLS);
      expect(started).toBeLessThanOrEqual(LIVE_CALLS + SOCKETS);
      expect(await count(t.db, 'call')).toBe(started);
      expect(refused.length).toBe(SOCKETS * ATTEMPTS - started);
      expect(new Set(refused.map((r) => r.code))).toEqual(new Set(['too_many_calls']));
      expect(refused[0]!.message).toMatch(/^the project has 40 live calls, as many as it may have at once/);

      // Every bot never connects: each call's alert fires, but only the first few are notified one by one.
      await expect.poll(() => count(t.db, 'alert'), { timeout: 60_000, interval: 500 }).toBe(started + 1);
      const { rows } = await t.db.pool.query<{ quiet: number; held: number }>(
        `SELECT count(*) FILTER (WHERE quiet)::int AS quiet, count(*) FILTER (WHERE subject = 'held-back')::int AS held FROM alert`,
      );
      expect(rows[0]).toEqual({ quiet: started - NOTIFIED_PER_RULE, held: 1 });
      await expect
        .poll(async () => (await t.db.pool.query(`SELECT value FROM alert WHERE subject = 'held-back'`)).rows[0]?.value, {
          timeout: 10_000,
        })
        .toBe(started - NOTIFIED_PER_RULE);
      // The receiver holds every delivery unanswered; the endpoint is deleted while they are in flight.
      await expect.poll(() => receiver.requests.length, { timeout: 30_000, interval: 200 }).toBe(NOTIFIED_PER_RULE + 1);
      expect(await count(t.db, 'webhook_delivery')).toBe(NOTIFIED_PER_RULE + 1);
      const held = receiver.requests
        .map((r) => JSON.parse(r.body) as { alert: { summary: string } })
        .filter((b) => /than it notifies one by one/.test(b.alert.summary));
      expect(held).toHaveLength(1);
      expect((await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key)).status).toBe(204);
      receiver.release();
      expect(await count(t.db, 'webhook_delivery')).toBe(0);
      // The held deliveries end (the receiver drops them) after their endpoint went: they record nothing and
      // fail nothing. The sentinel: a test alert to a new endpoint, delivered in a round after theirs.
      const sentinel = (
        await apiSend<WebhookEndpoint>(t, 'POST', '/alerts/endpoints', key, { url: receiver.url, format: 'json', enabled: true })
      ).body;
      expect((await apiSend(t, 'POST', `/alerts/rules/${rule.id}/test`, key)).status).toBeLessThan(300);
      await expect.poll(() => receiver.accepted.length, { timeout: 10_000 }).toBe(1);
      // Its attempt is written once the receiver answered: the only one, the held deliveries' wrote none.
      await expect.poll(() => count(t.db, 'webhook_attempt'), { timeout: 10_000 }).toBe(1);
      await apiSend(t, 'DELETE', `/alerts/endpoints/${sentinel.id}`, key);
      const errors = logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
      expect(errors).toEqual([]);
    },
  );
});
