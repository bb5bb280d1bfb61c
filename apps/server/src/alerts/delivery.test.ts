import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertNotification } from '@rtcscope/protocol';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryBody } from './body.js';
import { retryDelayMs, RETRY_FOR_MS } from './outbox.js';
import { postJson } from './post.js';
import { newSecret, signatureHeaders } from './signature.js';

const notification: AlertNotification = {
  id: '5b0f8a59-4c2e-4a51-9d1f-0c2b3e7a9d10',
  state: 'firing',
  at: 1_790_000_000_000,
  rule: { id: 'r1', name: 'Loss', condition: { kind: 'call-issue', issueType: 'downlink-loss' } },
  alert: {
    id: 'a1',
    startedAt: 1_790_000_000_000,
    resolvedAt: null,
    callId: 'room-7',
    participantId: 'alice',
    summary: 'downlink-loss on alice',
    value: null,
  },
};

describe('webhook signatures', () => {
  it('verify with the Standard Webhooks library, and not with another secret or body', () => {
    const secret = newSecret();
    const body = deliveryBody('json', notification);
    const headers = signatureHeaders(secret, notification.id, body, new Date());
    expect(new Webhook(secret).verify(body, headers)).toEqual(notification);
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('alice', 'bob'), headers)).toThrow();
  });

  it('carry the time they were made: an old one is refused as a replay', () => {
    const secret = newSecret();
    const body = deliveryBody('json', notification);
    const headers = signatureHeaders(secret, notification.id, body, new Date(Date.now() - 3600_000));
    expect(() => new Webhook(secret).verify(body, headers)).toThrow(/timestamp/i);
  });
});

describe('delivery bodies', () => {
  it('are the notification as documented, or a Slack message naming the rule, call and summary', () => {
    expect(JSON.parse(deliveryBody('json', notification))).toEqual(notification);
    expect(JSON.parse(deliveryBody('slack', notification))).toEqual({ text: '*Alert: Loss* (call `room-7`)\ndownlink-loss on alice' });
    expect(
      JSON.parse(deliveryBody('slack', { ...notification, state: 'resolved', alert: { ...notification.alert, callId: null } })).text,
    ).toBe('*Resolved: Loss*\ndownlink-loss on alice');
  });
});

describe('retries', () => {
  it('wait 5 s doubling up to an hour, spread ±10 %, and are tried about 30 times in 24 hours', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, 0.5))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(retryDelayMs(20, 0.5)).toBe(3600_000);
    expect(retryDelayMs(1, 0)).toBe(4500);
    expect(retryDelayMs(1, 1)).toBe(5500);
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + retryDelayMs(attempts, 0.5) <= RETRY_FOR_MS) elapsed += retryDelayMs(attempts++, 0.5);
    expect(attempts).toBeGreaterThan(25);
    expect(attempts).toBeLessThan(35);
  });
});

describe('posting', () => {
  it('refuses a loopback or private address unless allowed, and anything but loopback in tests, before connecting', async () => {
    let reached = 0;
    const server = createServer((_req, res) => {
      reached++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
    try {
      const refused = await postJson(url, '{}', {}, 'public');
      expect(refused).toMatchObject({
        statusCode: null,
        refused: true,
        error: expect.stringMatching(/^localhost resolves to an address this server may not reach \(not a public address/),
      });
      // Whoever set the URL is not told what the operator's DNS answered.
      expect(refused.error).not.toMatch(/127\.0\.0\.1|::1/);
      expect(reached).toBe(0);
      expect(await postJson(url, '{}', {}, 'any')).toMatchObject({ statusCode: 200, error: null, refused: false });
      expect(await postJson(url.replace('localhost', '127.0.0.1'), '{}', {}, 'loopback')).toMatchObject({ statusCode: 200, error: null });
      expect(reached).toBe(2);
      expect((await postJson(url.replace('localhost', '10.0.0.1'), '{}', {}, 'public')).error).toMatch(/not a public address/);
      expect((await postJson(url.replace('localhost', '[fd00::1]'), '{}', {}, 'public')).error).toMatch(/not a public address/);
      expect((await postJson(url.replace('localhost', '10.0.0.1'), '{}', {}, 'loopback')).error).toMatch(/only loopback/);
      expect((await postJson('http://hooks.example.com/x', '{}', {}, 'loopback')).error).toMatch(/not looked up/);
      expect(reached).toBe(2);
    } finally {
      server.close();
    }
  });
});
