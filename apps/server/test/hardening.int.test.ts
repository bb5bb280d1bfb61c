import type { IceServersAnswer, PrecallReport, PrecallResultAck, ProjectInfo } from '@rtcscope/protocol';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ICE_SERVERS_PER_ADDRESS_PER_MINUTE, ICE_SERVERS_PER_MINUTE } from '../src/ingest/ice-servers.js';
import { SOCKETS_PER_ADDRESS } from '../src/ingest/limits.js';
import { PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE } from '../src/ingest/precall-results.js';
import type { NewProject } from '../src/identity/keys/keys.js';
import type { AlertRule } from '@rtcscope/protocol';
import { evaluateRules, HELD_BACK, HELD_BACK_STAYS_MIN } from '../src/alerts/evaluate.js';
import { apiSend, count, handshake, ingestSocket, runAdmin, send, startTestServer, type TestServer } from './harness.js';

// Issue 58: the probes of an attacker who holds only what a customer's page publishes (the ingest key).

let t: TestServer;
beforeAll(async () => {
  // Behind one trusted proxy, so that each probe names the client address it comes from.
  t = await startTestServer(6, { trustProxy: 1, callIdleTimeoutS: 2 });
});
afterAll(() => t.close());

const TURN = { urls: ['turn:127.0.0.1:3478?transport=udp'], secret: 'a-shared-secret-of-coturn' };
const from = (address: string) => ({ 'x-forwarded-for': address });
const askTurn = (socket: Socket) => socket.timeout(10_000).emitWithAck('iceServers') as Promise<IceServersAnswer>;
const sendResult = (socket: Socket, body: unknown) =>
  socket.timeout(10_000).emitWithAck('precallResult', body) as Promise<PrecallResultAck>;
const precallSocket = (p: NewProject, callId: string, address: string) =>
  ingestSocket(t.url, { ...handshake(p, callId, 'tester', `s-${callId}`), kind: 'precall' }, from(address));
/** Sockets the probes were let in with, held open as an attacker would hold them, and closed after each test. */
const opened: Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.disconnect();
});
/** Null when the socket was let in (it is held open until the test ends), else the refusal. */
const refusal = (opening: Promise<Socket>) =>
  opening.then(
    (socket) => {
      opened.push(socket);
      return null;
    },
    (err: Error & { data?: { code?: string } }) => ({ code: err.data?.code, message: err.message }),
  );

function result(start: number, extra: Partial<PrecallReport> = {}): PrecallReport {
  return {
    v: 1,
    verdict: 'failed',
    findings: [{ code: 'no-relay', severity: 'error', text: 'No way to the TURN server.' }],
    testTiming: { start, durationMs: 15_000 },
    devices: { camera: { status: 'ok', asked: { width: 640, height: 480 }, fps: 30 }, microphone: { status: 'ok' } },
    gathering: { durationMs: 100, complete: true, candidates: [{ type: 'host', protocol: 'udp', count: 1 }] },
    transports: [],
    media: null,
    ...extra,
  } as PrecallReport;
}

describe('TURN credentials through the publishable key', () => {
  it("are handed out at most a dozen a minute to one address, so that one address cannot spend the project's minute", async () => {
    const p = t.projects[0]!;
    await apiSend(t, 'PUT', '/project/turn', p.apiKey, TURN);
    const sockets = await Promise.all(
      Array.from({ length: ICE_SERVERS_PER_ADDRESS_PER_MINUTE + 3 }, (_, k) =>
        ingestSocket(t.url, handshake(p, `turn-${k}`, 'bot', `b${k}`), from('203.0.113.9')),
      ),
    );
    try {
      const answers = await Promise.all(sockets.map(askTurn));
      expect(answers.filter((a) => a.ok)).toHaveLength(ICE_SERVERS_PER_ADDRESS_PER_MINUTE);
      expect(answers.find((a) => !a.ok)).toEqual({
        ok: false,
        error: expect.stringMatching(/^this address asked for the project's TURN credentials 12 times in the last minute/),
      });
      // A real client elsewhere is still served: the attacker's refusals spent nothing of the project's minute.
      const real = await ingestSocket(t.url, handshake(p, 'real-call', 'alice', 'real'), from('198.51.100.20'));
      const answer = await askTurn(real);
      real.disconnect();
      expect(answer.ok).toBe(true);
      if (!answer.ok) return;
      // Good for minutes, whatever the project once set.
      expect(answer.expiresAt! - Date.now()).toBeLessThanOrEqual(300_000);
    } finally {
      for (const s of sockets) s.disconnect();
    }
  });

  it("are minted no more than the project's minute allows, however many addresses ask", async () => {
    const p = t.projects[1]!;
    await apiSend(t, 'PUT', '/project/turn', p.apiKey, TURN);
    const addresses = Math.ceil(ICE_SERVERS_PER_MINUTE / ICE_SERVERS_PER_ADDRESS_PER_MINUTE) + 1;
    const sockets: Socket[] = [];
    try {
      for (let a = 0; a < addresses; a++) {
        sockets.push(
          ...(await Promise.all(
            Array.from({ length: ICE_SERVERS_PER_ADDRESS_PER_MINUTE }, (_, k) =>
              ingestSocket(t.url, handshake(p, `flood-${a}-${k}`, 'bot', `f${a}-${k}`), from(`198.51.100.${a + 100}`)),
            ),
          )),
        );
      }
      const answers = await Promise.all(sockets.map(askTurn));
      expect(answers.filter((a) => a.ok)).toHaveLength(ICE_SERVERS_PER_MINUTE);
      expect(answers.find((a) => !a.ok)).toEqual({
        ok: false,
        error: expect.stringMatching(/^the project asked for TURN credentials 120 times in the last minute/),
      });
    } finally {
      for (const s of sockets) s.disconnect();
    }
  });
});

describe('forged pre-call results', () => {
  it('dated far ahead or long ago are refused, and nothing of them is stored: no call, no participant', async () => {
    const p = t.projects[2]!;
    const socket = await precallSocket(p, 'forged-2286', '203.0.113.30');
    try {
      for (const start of [Date.UTC(2286, 0, 1), Date.now() - 2 * 3_600_000, Date.now() + 11 * 60_000]) {
        const answer = await sendResult(socket, result(start));
        expect(answer).toEqual({ ok: false, error: expect.stringMatching(/^precallResult testTiming: a test from .* did not just run/) });
      }
    } finally {
      socket.disconnect();
    }
    const { rows } = await t.db.pool.query('SELECT 1 FROM call WHERE project_id = $1', [p.projectId]);
    expect(rows).toEqual([]);
    expect(await count(t.db, 'precall_test')).toBe(0);
  });

  it("sent for an ended call's id neither reopen it nor add anyone to it", async () => {
    const p = t.projects[2]!;
    const caller = await ingestSocket(t.url, handshake(p, 'real-ended', 'alice'), from('198.51.100.31'));
    expect(await send(caller, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]], bye: true })).toMatchObject({
      ok: true,
    });
    caller.disconnect();
    await expect
      .poll(async () => (await t.db.pool.query("SELECT ended_at FROM call WHERE external_id = 'real-ended'")).rows[0]?.ended_at, {
        timeout: 15_000,
      })
      .not.toBeNull();

    const forger = await precallSocket(p, 'real-ended', '203.0.113.31');
    try {
      expect(await sendResult(forger, result(Date.now() - 20_000))).toEqual({
        ok: false,
        error: 'call real-ended was made as a call, not a pre-call test: its id is taken; use a new id',
      });
      // Its samples are refused alike, and the socket is ended.
      const batch = await send(forger, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] });
      expect(batch).toMatchObject({ ok: false, retry: false, error: { code: 'call_kind' } });
    } finally {
      forger.disconnect();
    }
    const { rows } = await t.db.pool.query<{ ended: boolean; people: number }>(
      `SELECT c.ended_at IS NOT NULL AS ended, (SELECT count(*)::int FROM participant x WHERE x.call_id = c.id) AS people
       FROM call c WHERE c.external_id = 'real-ended'`,
    );
    expect(rows).toEqual([{ ended: true, people: 1 }]);
  });

  it("are one per socket and a dozen a minute per address, so that one client cannot spend the project's minute", async () => {
    const p = t.projects[3]!;
    const one = await precallSocket(p, 'forged-many', '203.0.113.40');
    try {
      const start = Date.now() - 20_000;
      expect(await sendResult(one, result(start))).toEqual({ ok: true });
      // The same result again is answered as before; another is refused.
      expect(await sendResult(one, result(start))).toEqual({ ok: true });
      for (let k = 0; k < 5; k++) {
        expect(await sendResult(one, result(start + k + 1, { ticket: `T-${k}` }))).toEqual({
          ok: false,
          error: 'precallResult: this connection sent its test result already: a test sends one, from a connection of its own',
        });
      }
    } finally {
      one.disconnect();
    }
    const sockets = await Promise.all(
      Array.from({ length: PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE + 2 }, (_, k) => precallSocket(p, `forged-${k}`, '203.0.113.41')),
    );
    try {
      const answers = await Promise.all(sockets.map((s) => sendResult(s, result(Date.now() - 20_000))));
      expect(answers.filter((a) => a.ok)).toHaveLength(PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE);
      expect(answers.find((a) => !a.ok)).toEqual({
        ok: false,
        error: expect.stringMatching(/^this address sent 12 of the project's pre-call results in the last minute/),
      });
    } finally {
      for (const s of sockets) s.disconnect();
    }
    // A real test from elsewhere is still stored.
    const real = await precallSocket(p, 'real-test', '198.51.100.42');
    expect(await sendResult(real, result(Date.now() - 20_000, { verdict: 'good' }))).toEqual({ ok: true });
    real.disconnect();
    const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM precall_test WHERE project_id = $1', [
      p.projectId,
    ]);
    expect(rows[0]!.n).toBe(1 + PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE + 1);
  });
});

describe('the live-call limit', () => {
  const LIMIT = 5;

  it('lets no more calls in than the limit when 40 handshakes arrive at once', async () => {
    const p = t.projects[4]!;
    expect((await runAdmin(t.databaseUrl, 'set-live-call-limit', p.projectId, String(LIMIT))).code).toBe(0);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, k) =>
        refusal(ingestSocket(t.url, handshake(p, `burst-${k}`, 'bot', `burst-${k}`), from(`203.0.113.${50 + (k % 4)}`))),
      ),
    );
    // Sockets let in hold their calls' places until they start them or go.
    expect(outcomes.filter((o) => o === null)).toHaveLength(LIMIT);
    expect(new Set(outcomes.filter((o) => o !== null).map((o) => o!.code))).toEqual(new Set(['too_many_calls']));
  });

  it('keeps places for sockets that wait before their first batch, and a clock ahead keeps no call live once its socket went', async () => {
    const p = t.projects[5]!;
    expect((await runAdmin(t.databaseUrl, 'set-live-call-limit', p.projectId, String(LIMIT))).code).toBe(0);
    const waiting = await Promise.all(
      Array.from({ length: LIMIT }, (_, k) => ingestSocket(t.url, handshake(p, `waiting-${k}`, 'bot', `w${k}`), from('203.0.113.60'))),
    );
    try {
      // Every place is held by a socket that has sent nothing: a sixth call is refused.
      expect(await refusal(ingestSocket(t.url, handshake(p, 'sixth', 'bot', 'w6'), from('203.0.113.60')))).toMatchObject({
        code: 'too_many_calls',
      });
      // One of them starts its call with a clock 9.5 minutes ahead (inside the window), then goes.
      const ahead = Date.now() + 570_000;
      expect(await send(waiting[0]!, { n: 0, t0: ahead, conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 20]] })).toMatchObject({ ok: true });
      const seen = await t.db.pool.query<{ ahead: boolean }>(
        "SELECT p.last_seen_at > now() + interval '5 seconds' AS ahead FROM participant p JOIN call c ON c.id = p.call_id WHERE c.external_id = 'waiting-0'",
      );
      expect(seen.rows).toEqual([{ ahead: false }]);
    } finally {
      for (const s of waiting) s.disconnect();
    }
    // Its call ends when its participant is idle by the server's clock (2 s here), not 9.5 minutes later.
    await expect
      .poll(async () => (await t.db.pool.query("SELECT ended_at FROM call WHERE external_id = 'waiting-0'")).rows[0]?.ended_at, {
        timeout: 15_000,
      })
      .not.toBeNull();
  });

  it(
    `holds no more than ${SOCKETS_PER_ADDRESS} sockets of one address, so idle sockets cannot shut out the real SDK`,
    { timeout: 60_000 },
    async () => {
      const p = t.projects[0]!;
      const idle: Socket[] = [];
      try {
        for (let k = 0; k < SOCKETS_PER_ADDRESS; k += 25) {
          idle.push(
            ...(await Promise.all(
              Array.from({ length: 25 }, (_, j) =>
                ingestSocket(t.url, handshake(p, 'idle-call', `idle-${k + j}`, `i${k + j}`), from('203.0.113.70')),
              ),
            )),
          );
        }
        expect(await refusal(ingestSocket(t.url, handshake(p, 'idle-call', 'one-more', 'i-more'), from('203.0.113.70')))).toEqual({
          code: 'too_many_connections',
          message: `this address has ${SOCKETS_PER_ADDRESS} SDK connections of the project to this server, as many as one address may hold: close some, or try again later`,
        });
        expect(await refusal(ingestSocket(t.url, handshake(p, 'idle-call', 'alice', 'a1'), from('198.51.100.71')))).toBeNull();
      } finally {
        for (const s of idle) s.disconnect();
      }
    },
  );
});

describe('a replaced ingest key', () => {
  it('ends the sockets opened with the old one at once: no TURN credentials, no results, no batches through them', async () => {
    const p = t.projects[3]!;
    const socket = await precallSocket(p, 'before-rotation', '198.51.100.80');
    const ended = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    const replaced = await apiSend<ProjectInfo>(t, 'POST', '/project/ingest-key', p.apiKey);
    expect(replaced.status).toBe(200);
    expect(await ended).toBe('io server disconnect');
    // A handshake with the old key is refused; the new one opens the project.
    expect(await refusal(precallSocket(p, 'after-rotation', '198.51.100.80'))).toMatchObject({ code: 'unauthorized' });
    const fresh = await ingestSocket(
      t.url,
      { ...handshake({ ...p, ingestKey: replaced.body.ingestKey }, 'after-rotation', 'tester', 's-new'), kind: 'precall' },
      from('198.51.100.80'),
    );
    expect((await askTurn(fresh)).ok).toBe(true);
    fresh.disconnect();
  });
});

describe('alerts an attacker could make flap or fire at will', () => {
  it("measure a participant's wait to connect by the server's clock, not by a client's dated days back", async () => {
    const p = t.projects[4]!;
    const rule = (
      await apiSend<AlertRule>(t, 'POST', '/alerts/rules', p.apiKey, {
        name: 'Stuck joining',
        enabled: true,
        condition: { kind: 'never-connected', afterS: 5 },
      })
    ).body;
    // Its call's place: the live-call limit test filled this project's.
    expect((await runAdmin(t.databaseUrl, 'set-live-call-limit', p.projectId, '100')).code).toBe(0);
    const socket = await ingestSocket(t.url, handshake(p, 'dated-back', 'bot', 'dated'), from('203.0.113.90'));
    try {
      // Its first sample dated 23 hours back (as far as a batch's offsets reach), its last now.
      const dayAgo = Date.now() - 23 * 3_600_000;
      const first = {
        n: 0,
        t0: dayAgo,
        conns: [{ i: 0, key: 'pc1' }],
        c: [
          [0, 0, 0, 20],
          [0, 1, Date.now() - dayAgo, 20],
        ],
      };
      expect(await send(socket, first)).toMatchObject({ ok: true });
      let n = 1;
      // Samples keep coming (the idle timeout is 2 s here), never connected.
      const keepAlive = () => send(socket, { n, t0: Date.now(), c: [[0, ++n, 0, 20]] });
      await evaluateRules(t.db.pool);
      const fired = () =>
        t.db.pool.query<{ waited: number }>(
          `SELECT extract(epoch FROM a.started_at - x.registered_at)::float8 AS waited FROM alert a
         JOIN participant x ON x.call_id = a.call_id AND x.external_id = a.participant WHERE a.rule_id = $1`,
          [rule.id],
        );
      expect((await fired()).rows).toEqual([]);
      // It fires once 5 s have passed since the server first heard of the participant: not before.
      await expect.poll(async () => (await keepAlive(), (await fired()).rows.length), { timeout: 20_000, interval: 500 }).toBe(1);
      expect((await fired()).rows[0]!.waited).toBeGreaterThanOrEqual(5);
    } finally {
      socket.disconnect();
      await apiSend(t, 'DELETE', `/alerts/rules/${rule.id}`, p.apiKey);
    }
  });

  it(`keep a held-back alert open until its rule's quiet alerts have been gone ${HELD_BACK_STAYS_MIN} minutes, so a flood that comes and goes pages once`, async () => {
    const p = t.projects[5]!;
    const rule = (
      await apiSend<AlertRule>(t, 'POST', '/alerts/rules', p.apiKey, {
        name: 'Flood',
        enabled: true,
        condition: { kind: 'never-connected', afterS: 3600 },
      })
    ).body;
    const insert = (subject: string, quiet: boolean, resolvedMinAgo: number | null) =>
      t.db.pool.query(
        `INSERT INTO alert (project_id, rule_id, subject, summary, value, quiet, resolved_at)
         VALUES ($1, $2, $3, 'seeded', 1, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() - make_interval(mins => $5::int) END) RETURNING id`,
        [p.projectId, rule.id, subject, quiet, resolvedMinAgo],
      );
    const held = (await insert(HELD_BACK, false, null)).rows[0]!.id as string;
    const quiet = (await insert('participant:1:bot', true, 1)).rows[0]!.id as string;
    const resolved = async () =>
      (await t.db.pool.query<{ resolved: boolean }>('SELECT resolved_at IS NOT NULL AS resolved FROM alert WHERE id = $1', [held])).rows[0]!
        .resolved;
    // No quiet alert holds now, but one did a minute ago: the held-back alert stays open.
    await evaluateRules(t.db.pool);
    expect(await resolved()).toBe(false);
    await t.db.pool.query(`UPDATE alert SET resolved_at = now() - make_interval(mins => $2) WHERE id = $1`, [
      quiet,
      HELD_BACK_STAYS_MIN + 1,
    ]);
    await expect.poll(async () => (await evaluateRules(t.db.pool), await resolved()), { timeout: 10_000 }).toBe(true);
    await apiSend(t, 'DELETE', `/alerts/rules/${rule.id}`, p.apiKey);
  });
});

describe("another site's page", () => {
  const poll = (origin: string | null) =>
    fetch(`${t.url}/socket.io/?EIO=4&transport=polling`, { headers: origin === null ? {} : { origin } }).then(async (res) => ({
      status: res.status,
      cors: res.headers.get('access-control-allow-origin'),
      body: await res.text(),
    }));

  it('may not open a polling session on any namespace, nor learn what the server answers; WebSocket from it still reports', async () => {
    const foreign = await poll('https://attacker.example');
    expect(foreign).toMatchObject({ status: 403, cors: null });
    expect(foreign.body).toContain("another site's page may not poll this server: connect over WebSocket");
    expect(foreign.body).not.toMatch(/"sid"/);
    // This server's own pages and programs (no Origin) poll as before, with no CORS headers either.
    const own = await poll(t.url);
    expect(own).toMatchObject({ status: 200, cors: null });
    expect(own.body).toMatch(/"sid"/);
    expect((await poll(null)).status).toBe(200);
    // The SDK, on a customer's site, reports over WebSocket.
    const p = t.projects[5]!;
    const socket = await ingestSocket(t.url, handshake(p, 'from-a-site', 'alice', 's-site'), {
      ...from('203.0.113.60'),
      origin: 'https://customer.example',
    });
    opened.push(socket);
    expect(socket.connected).toBe(true);
  });
});
