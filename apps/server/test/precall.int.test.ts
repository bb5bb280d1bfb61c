import { createHmac } from 'node:crypto';
import type { ApiKeyCreated, IceServersAnswer, TurnSettingsInfo } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSend, handshake, ingestSocket, startTestServer, type TestServer } from './harness.js';
import { ICE_SERVERS_PER_MINUTE } from '../src/ingest/ice-servers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const SETTINGS = {
  urls: ['turn:127.0.0.1:3478?transport=udp', 'turns:turn.example.com:5349?transport=tcp'],
  secret: 'a-shared-secret-of-coturn',
};

describe("a project's TURN servers", () => {
  it('are set, shown without their secret, replaced and removed, each change in the audit log', async () => {
    const p = t.projects[0]!;
    expect((await api<TurnSettingsInfo>(t, '/project/turn', p.apiKey)).body).toEqual({ turn: null });

    const set = await apiSend<TurnSettingsInfo>(t, 'PUT', '/project/turn', p.apiKey, SETTINGS);
    expect(set.status).toBe(200);
    expect(set.body.turn).toEqual({ urls: SETTINGS.urls, ttlS: 3600, updatedAt: expect.any(Number) });
    const shown = await api<TurnSettingsInfo>(t, '/project/turn', p.apiKey);
    expect(shown.body).toEqual(set.body);
    expect(JSON.stringify(shown.body)).not.toContain(SETTINGS.secret);

    const replaced = await apiSend<TurnSettingsInfo>(t, 'PUT', '/project/turn', p.apiKey, {
      ...SETTINGS,
      urls: ['turn:10.0.0.1'],
      ttlS: 600,
    });
    expect(replaced.body.turn).toMatchObject({ urls: ['turn:10.0.0.1'], ttlS: 600 });
    const { rows } = await t.db.pool.query<{ secret: string; n: number }>(
      'SELECT secret, (SELECT count(*) FROM project_turn)::int AS n FROM project_turn WHERE project_id = $1',
      [p.projectId],
    );
    expect(rows).toEqual([{ secret: SETTINGS.secret, n: 1 }]);

    expect((await apiSend(t, 'DELETE', '/project/turn', p.apiKey)).status).toBe(204);
    expect((await apiSend(t, 'DELETE', '/project/turn', p.apiKey)).status).toBe(404);
    expect((await api<TurnSettingsInfo>(t, '/project/turn', p.apiKey)).body).toEqual({ turn: null });

    const audit = await t.db.pool.query<{ action: string; detail: unknown }>(
      "SELECT action, detail FROM audit_event WHERE project_id = $1 AND action LIKE 'turn.%' ORDER BY id",
      [p.projectId],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['turn.configured', 'turn.configured', 'turn.removed']);
    expect(JSON.stringify(audit.rows)).not.toContain(SETTINGS.secret);
  });

  it('refuse what is not a TURN or STUN server, a short secret, a lifetime out of range, and change nothing', async () => {
    const p = t.projects[0]!;
    for (const body of [
      { ...SETTINGS, urls: ['http://turn.example.com'] },
      { ...SETTINGS, urls: ['turn:turn.example.com?transport=sctp'] },
      { ...SETTINGS, urls: [] },
      { ...SETTINGS, secret: 'short' },
      { ...SETTINGS, ttlS: 10 },
      { ...SETTINGS, extra: true },
    ]) {
      const refused = await apiSend(t, 'PUT', '/project/turn', p.apiKey, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    // The answer says what a server URL is, not the pattern that checks it.
    const refused = await apiSend<{ message: string }>(t, 'PUT', '/project/turn', p.apiKey, {
      ...SETTINGS,
      urls: ['http://turn.example.com'],
    });
    expect(refused.body.message).toMatch(/^body\/urls\/0 must be a TURN or STUN server URL: turn:host\[:port\]/);
    expect((await api<TurnSettingsInfo>(t, '/project/turn', p.apiKey)).body).toEqual({ turn: null });
  });

  it("are an admin's: a read-only key may not see or set them, and a project's key never reaches another's", async () => {
    const [p, other] = [t.projects[0]!, t.projects[1]!];
    const reader = await apiSend<ApiKeyCreated>(t, 'POST', '/project/keys', p.apiKey, { name: 'reader' });
    expect((await api(t, '/project/turn', reader.body.apiKey)).status).toBe(403);
    expect((await apiSend(t, 'PUT', '/project/turn', reader.body.apiKey, SETTINGS)).status).toBe(403);

    expect((await apiSend(t, 'PUT', '/project/turn', other.apiKey, SETTINGS)).status).toBe(200);
    expect((await api<TurnSettingsInfo>(t, '/project/turn', p.apiKey)).body).toEqual({ turn: null });
    expect((await apiSend(t, 'DELETE', '/project/turn', p.apiKey)).status).toBe(404);
    expect((await api<TurnSettingsInfo>(t, '/project/turn', other.apiKey)).body.turn?.urls).toEqual(SETTINGS.urls);
  });
});

describe('TURN credentials handed to an SDK', () => {
  it("are the project's servers with a user name that expires and a password signed with its secret; none when it set none", async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'precall-1', 'alice', 'sess-1'));
    try {
      const ask = () => socket.timeout(10_000).emitWithAck('iceServers') as Promise<IceServersAnswer>;
      expect(await ask()).toEqual({ ok: true, iceServers: [], expiresAt: null });

      await apiSend(t, 'PUT', '/project/turn', p.apiKey, { ...SETTINGS, ttlS: 600 });
      const before = Date.now();
      const answer = await ask();
      if (!answer.ok) throw new Error(answer.error);
      const [server] = answer.iceServers;
      expect(server!.urls).toEqual(SETTINGS.urls);
      const [expiry, label] = server!.username!.split(':');
      expect(label).toBe('rtcscope-sess-1');
      expect(Number(expiry) * 1000).toBe(answer.expiresAt);
      expect(answer.expiresAt! - before).toBeGreaterThan(590_000);
      expect(answer.expiresAt! - before).toBeLessThanOrEqual(601_000);
      // What coturn computes with static-auth-secret to check it.
      expect(server!.credential).toBe(createHmac('sha1', SETTINGS.secret).update(server!.username!).digest('base64'));
    } finally {
      socket.disconnect();
      await apiSend(t, 'DELETE', '/project/turn', p.apiKey);
    }
  });

  it("are not minted in a flood through the publishable key: past the minute's allowance, a clear refusal", async () => {
    const p = t.projects[1]!;
    const socket = await ingestSocket(t.url, handshake(p, 'precall-2', 'bob', 'sess-2'));
    try {
      const answers = await Promise.all(
        Array.from(
          { length: ICE_SERVERS_PER_MINUTE + 5 },
          () => socket.timeout(10_000).emitWithAck('iceServers') as Promise<IceServersAnswer>,
        ),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(ICE_SERVERS_PER_MINUTE);
      expect(answers.find((a) => !a.ok)).toEqual({ ok: false, error: expect.stringMatching(/in the last minute: try again in a minute$/) });
    } finally {
      socket.disconnect();
    }
  });
});
