import { createHmac } from 'node:crypto';
import type {
  AlertRule,
  ApiKeyCreated,
  CallList,
  IceServersAnswer,
  NotificationList,
  PrecallDetail,
  PrecallInsights,
  PrecallList,
  PrecallReport,
  PrecallResultAck,
  TurnSettingsInfo,
} from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSend, eventually, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import type { NewProject } from '../src/identity/keys/keys.js';

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
    expect(set.body.turn).toEqual({ urls: SETTINGS.urls, ttlS: 300, updatedAt: expect.any(Number) });
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
      // Credentials last minutes: one that leaks from a page is good for no longer.
      { ...SETTINGS, ttlS: 3600 },
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
      // None set: none handed out, and nothing held, so the socket may ask again.
      expect(await ask()).toEqual({ ok: true, iceServers: [], expiresAt: null });

      await apiSend(t, 'PUT', '/project/turn', p.apiKey, { ...SETTINGS, ttlS: 600 });
      const before = Date.now();
      const answer = await ask();
      if (!answer.ok) throw new Error(answer.error);
      const [server] = answer.iceServers;
      expect(server!.urls).toEqual(SETTINGS.urls);
      const [expiry, label, ...rest] = server!.username!.split(':');
      // The label is the server's own, not the client's session id: coturn logs it, and the log says which session it was.
      expect(label).toMatch(/^rtcscope-[A-Za-z0-9_-]{12}$/);
      expect(rest).toEqual([]);
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

  it('are handed to a socket once while they last: asked again, it is told until when the ones it holds are good', async () => {
    const p = t.projects[0]!;
    await apiSend(t, 'PUT', '/project/turn', p.apiKey, SETTINGS);
    const socket = await ingestSocket(t.url, handshake(p, 'precall-again', 'carol', 'sess-3'));
    try {
      const ask = () => socket.timeout(10_000).emitWithAck('iceServers') as Promise<IceServersAnswer>;
      const first = await ask();
      expect(first).toMatchObject({ ok: true, expiresAt: expect.any(Number) });
      const again = await ask();
      expect(again).toEqual({
        ok: false,
        error: `this connection holds TURN credentials good until ${new Date((first as { expiresAt: number }).expiresAt).toISOString()}: use those (new ones are handed out in their last minute)`,
      });
    } finally {
      socket.disconnect();
      await apiSend(t, 'DELETE', '/project/turn', p.apiKey);
    }
  });
});

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** A pre-call result as the SDK makes one: media over `transport` at `kbps`, or none (`null`). */
function report(transport: 'udp' | 'tcp' | 'tls' | null, kbps = 1500, extra: Partial<PrecallReport> = {}): PrecallReport {
  return {
    v: 1,
    verdict: transport ? 'good' : 'failed',
    findings: [
      { code: 'throughput', severity: 'info', text: `About ${kbps} kbit/s through the TURN server.` },
      ...(transport === 'tcp'
        ? [{ code: 'udp-blocked', severity: 'warning' as const, text: 'UDP is blocked; TCP through TURN works.' }]
        : []),
    ],
    testTiming: { start: Date.now() - 20_000, durationMs: 19_000 },
    devices: {
      camera: { status: 'ok', asked: { width: 1280, height: 720 }, got: { width: 1280, height: 720 }, fps: 30 },
      microphone: { status: 'ok', levelDb: -20 },
    },
    gathering: {
      durationMs: 120,
      complete: true,
      candidates: [
        { type: 'host', protocol: 'udp', count: 2 },
        ...(transport === 'udp' ? [{ type: 'srflx' as const, protocol: 'udp', count: 1 }] : []),
      ],
    },
    transports: [
      {
        transport: 'udp',
        url: 'turn:t.example:3478?transport=udp',
        connected: transport === 'udp',
        ...(transport === 'udp' ? { connectMs: 90 } : { error: 'no relay' }),
      },
      { transport: 'tcp', url: 'turn:t.example:3478?transport=tcp', connected: transport === 'udp' || transport === 'tcp', connectMs: 140 },
    ],
    media: transport
      ? {
          transport,
          networkTiming: { iceMs: 100, dtlsMs: 60, peerConnectionMs: 160, firstMediaMs: 700 },
          steps: [{ targetKbps: 2000, kbps, lossPct: 0 }],
          throughputKbps: kbps,
          throughputAtLeast: false,
          rttMs: { min: 20, avg: 25, max: 40 },
          lossPct: { min: 0, avg: 0.5, max: 1 },
        }
      : null,
    ...extra,
  };
}

describe('pre-call test results', () => {
  const sendResult = (socket: Awaited<ReturnType<typeof ingestSocket>>, body: unknown) =>
    socket.timeout(10_000).emitWithAck('precallResult', body) as Promise<PrecallResultAck>;
  const precallSocket = (p: NewProject, callId: string, session: string, userAgent = CHROME) =>
    ingestSocket(t.url, { ...handshake(p, callId, 'tester', session), kind: 'precall' }, { 'user-agent': userAgent });

  it('are kept once beside the call their samples made, listed apart from calls, and read whole', async () => {
    const p = t.projects[0]!;
    const socket = await precallSocket(p, 'precall-one', 'pc-1');
    try {
      const sample = await send(socket, { n: 0, t0: Date.now(), e: [[0, 0, null, 'metadata', '{}']] });
      expect(sample.ok).toBe(true);
      const sent = report('tcp', 800, { ticket: 'T-1234' });
      expect(await sendResult(socket, sent)).toEqual({ ok: true });
      // Sent again (an answer lost to a reconnect): the same test, not a second.
      expect(await sendResult(socket, sent)).toEqual({ ok: true });
    } finally {
      socket.disconnect();
    }
    const { rows } = await t.db.pool.query<{ n: number; kind: string }>(
      "SELECT count(*)::int AS n, min(c.kind) AS kind FROM precall_test t JOIN call c ON c.id = t.call_id WHERE c.external_id = 'precall-one'",
    );
    expect(rows).toEqual([{ n: 1, kind: 'precall' }]);

    const list = await api<PrecallList>(t, '/precall-tests', p.apiKey);
    expect(list.body.tests).toEqual([
      expect.objectContaining({
        callId: 'precall-one',
        ticket: 'T-1234',
        verdict: 'good',
        transport: 'tcp',
        needsTurn: true,
        udpOk: false,
        tcpOk: true,
        tlsOk: null,
        throughputKbps: 800,
        rttMs: 25,
        browser: 'Chrome',
        // The warning before the information.
        findings: ['UDP is blocked; TCP through TURN works.', 'About 800 kbit/s through the TURN server.'],
      }),
    ]);
    expect((await api<PrecallList>(t, '/precall-tests?ticket=T-1234', p.apiKey)).body.tests).toHaveLength(1);
    expect((await api<PrecallList>(t, '/precall-tests?ticket=T-9', p.apiKey)).body.tests).toHaveLength(0);
    const detail = await api<PrecallDetail>(t, '/precall-tests/precall-one', p.apiKey);
    expect(detail.body.test.report).toEqual(report('tcp', 800, { ticket: 'T-1234', testTiming: detail.body.test.report.testTiming }));
    // Not among the calls (their list, and their insights), but a call of its own to open.
    expect((await api<CallList>(t, '/calls', p.apiKey)).body.calls.map((c) => c.id)).not.toContain('precall-one');
    expect((await api(t, '/calls/precall-one', p.apiKey)).status).toBe(200);
  });

  it('make their call when no sample came before them (every way to the TURN server blocked)', async () => {
    const p = t.projects[0]!;
    const socket = await precallSocket(p, 'precall-blocked', 'pc-2');
    try {
      expect(await sendResult(socket, report(null))).toEqual({ ok: true });
    } finally {
      socket.disconnect();
    }
    expect((await api<PrecallDetail>(t, '/precall-tests/precall-blocked', p.apiKey)).body.test).toMatchObject({
      verdict: 'failed',
      transport: null,
      throughputKbps: null,
    });
  });

  it('are refused, with what is wrong, from a connection that is not a test, for a call id a call holds, and when malformed; nothing is stored', async () => {
    const p = t.projects[0]!;
    const count = async () => (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM precall_test')).rows[0]!.n;
    const before = await count();
    const plain = await ingestSocket(t.url, handshake(p, 'a-real-call', 'alice', 'pc-3'));
    try {
      expect(await send(plain, { n: 0, t0: Date.now(), e: [[0, 0, null, 'metadata', '{}']] })).toMatchObject({ ok: true });
      expect(await sendResult(plain, report('udp'))).toEqual({ ok: false, error: expect.stringMatching(/not a pre-call test/) });
    } finally {
      plain.disconnect();
    }
    const squatter = await precallSocket(p, 'a-real-call', 'pc-4');
    try {
      expect(await sendResult(squatter, report('udp'))).toEqual({
        ok: false,
        error: expect.stringMatching(/made as a call, not a pre-call test/),
      });
    } finally {
      squatter.disconnect();
    }
    const malformed = await precallSocket(p, 'precall-malformed', 'pc-5');
    try {
      expect(await sendResult(malformed, { ...report('udp'), verdict: 'great' })).toEqual({
        ok: false,
        error: expect.stringMatching(/^precallResult verdict: /),
      });
      expect(await sendResult(malformed, report('udp', 900, { ticket: 'T\0' }))).toEqual({
        ok: false,
        error: expect.stringMatching(/^precallResult ticket: must not contain a NUL/),
      });
      expect(
        await sendResult(malformed, { ...report('udp'), findings: Array.from({ length: 21 }, () => report('udp').findings[0]) }),
      ).toMatchObject({ ok: false });
    } finally {
      malformed.disconnect();
    }
    expect(await count()).toBe(before);
    const { rows } = await t.db.pool.query<{ kind: string }>("SELECT kind FROM call WHERE external_id = 'a-real-call'");
    expect(rows).toEqual([{ kind: 'call' }]);
  });

  it("are the project's own: another project's key reads none of them", async () => {
    const other = t.projects[1]!;
    expect((await api<PrecallList>(t, '/precall-tests', other.apiKey)).body.tests).toEqual([]);
    expect((await api(t, '/precall-tests/precall-one', other.apiKey)).status).toBe(404);
  });

  it('are broken down like calls: verdicts, who needed TURN or went over TCP, throughput and RTT percentiles by browser', async () => {
    const p = t.projects[1]!;
    const tests: [string, 'udp' | 'tcp' | null, number, string][] = [
      ['precall-i1', 'udp', 1000, CHROME],
      ['precall-i2', 'udp', 2000, CHROME],
      ['precall-i3', 'udp', 3000, CHROME],
      ['precall-i4', 'tcp', 400, FIREFOX],
      ['precall-i5', null, 0, FIREFOX],
    ];
    for (const [callId, transport, kbps, agent] of tests) {
      const socket = await precallSocket(p, callId, callId, agent);
      try {
        expect(await sendResult(socket, report(transport, kbps))).toEqual({ ok: true });
      } finally {
        socket.disconnect();
      }
    }
    const all = (await api<PrecallInsights>(t, '/precall-tests/insights', p.apiKey)).body;
    expect(all.segments).toEqual([
      expect.objectContaining({
        segment: null,
        tests: 5,
        verdicts: { good: 4, fair: 0, poor: 0, failed: 1 },
        needsTurnPct: 40,
        udpBlockedPct: 40,
        viaTcpPct: 20,
        viaTlsPct: 0,
      }),
    ]);
    const byBrowser = (await api<PrecallInsights>(t, '/precall-tests/insights?breakdown=browser', p.apiKey)).body.segments;
    expect(byBrowser.map((s) => [s.segment, s.tests])).toEqual([
      ['Chrome', 3],
      ['Firefox', 2],
    ]);
    expect(byBrowser[0]!.throughputKbps).toEqual({ p10: 1200, p50: 2000, p90: 2800 });
    expect(byBrowser[1]).toMatchObject({ throughputKbps: { p50: 400 }, udpBlockedPct: 100, viaTcpPct: 50 });
    const byPath = (await api<PrecallInsights>(t, '/precall-tests/insights?breakdown=path', p.apiKey)).body.segments;
    expect(byPath.map((s) => [s.segment, s.tests])).toEqual([
      ['udp', 3],
      ['tcp', 1],
      [null, 1],
    ]);
  });
});

describe('an alert rule on pre-call tests', () => {
  it('fires when the share of failing tests passes its bound, and not while fewer tests than it asks were stored', async () => {
    // Project 1 holds the five tests of the insights above, one failed: 20 %.
    const p = t.projects[1]!;
    const make = async (name: string, minTests: number) =>
      (
        await apiSend<AlertRule>(t, 'POST', '/alerts/rules', p.apiKey, {
          name,
          enabled: true,
          condition: { kind: 'precall-failing-share', abovePct: 10, minTests },
        })
      ).body;
    const fires = await make('Failing tests', 5);
    const tooFew = await make('Needs six tests', 6);
    const list = async () => (await api<NotificationList>(t, '/alerts/notifications', p.apiKey)).body.notifications;
    const fired = await eventually(list, (ns) => ns.some((n) => n.rule.id === fires.id));
    expect(fired.find((n) => n.rule.id === fires.id)!.alert).toMatchObject({ callId: null, value: 20 });
    // Both rules are judged in the same round: the one that fired is the sentinel for the other.
    expect(fired.filter((n) => n.rule.id === tooFew.id)).toEqual([]);
    expect(
      (await api<NotificationList>(t, '/alerts/notifications', t.projects[0]!.apiKey)).body.notifications.filter(
        (n) => n.rule.id === fires.id,
      ),
    ).toEqual([]);
  });
});

describe('the hosted test page', () => {
  const ask = (body: unknown) =>
    fetch(`${t.url}/api/v1/hosted-test/recipient`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

  it("learns, with nothing but the link's key, whose project the results go to; no other key is told apart from a wrong one", async () => {
    const [p, other] = [t.projects[0]!, t.projects[1]!];
    const { rows } = await t.db.pool.query<{ organization: string }>(
      'SELECT o.name AS organization FROM project p JOIN organization o ON o.id = p.organization_id WHERE p.id = $1',
      [p.projectId],
    );
    expect(await ask({ ingestKey: p.ingestKey })).toEqual({ status: 200, body: { organization: rows[0]!.organization, project: p.name } });
    expect((await ask({ ingestKey: other.ingestKey })).body.project).toBe(other.name);
    // An API key is no ingest key, and a made-up one is no project's: the same answer.
    for (const ingestKey of [p.apiKey, 'ik_not-a-project-key']) {
      expect(await ask({ ingestKey })).toEqual({
        status: 404,
        body: expect.objectContaining({ message: "this link's project key is not valid: ask whoever sent it for a new link" }),
      });
    }
    expect((await ask({ ingestKey: p.ingestKey, project: p.projectId })).status).toBe(400);
    expect((await ask({})).status).toBe(400);
  });
});
