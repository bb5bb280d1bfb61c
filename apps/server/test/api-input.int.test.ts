import { Validator } from '@seriousme/openapi-schema-validator';
import type { ApiKeyList, CallList, ProjectInfo } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSend, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const callId of ['plain-call', 'under_score']) {
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, callId, 'alice'));
    expect((await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] })).ok).toBe(true);
    socket.disconnect();
  }
});
afterAll(() => t.close());

const key = () => t.projects[0]!.apiKey;
const get = (path: string) => api<{ statusCode: number; error: string; message: string }>(t, path, key());
/** What a refused request could have changed: the project, its keys, its calls. */
const state = async () => ({
  project: (await api<ProjectInfo>(t, '/project', key())).body,
  keys: (await api<ApiKeyList>(t, '/project/keys', key())).body.keys.map((k) => k.name),
  calls: (await api<CallList>(t, '/calls', key())).body.calls.map((c) => c.id),
});

describe('bad input to the REST API gets a 4xx naming the field, and changes nothing', () => {
  it('refuses NUL characters in a query, a path and a body', async () => {
    const before = await state();
    expect(await get('/calls?q=a%00b')).toMatchObject({
      status: 400,
      body: { message: 'querystring/q must not contain a NUL character (\\u0000)' },
    });
    expect(await get('/calls/a%00b')).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^params\/callId/) } });
    expect(await apiSend(t, 'POST', '/project/keys', key(), { name: 'a\u0000b' })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^body\/name/) },
    });
    expect(await apiSend(t, 'POST', '/lab/agents', key(), { name: '\u0000' })).toMatchObject({ status: 400 });
    expect(await state()).toEqual(before);
  });

  it('refuses times no date type holds, in every route that takes them', async () => {
    for (const path of [
      '/calls?from=99999999999999999',
      '/calls?to=-1',
      '/calls/plain-call/series?from=1e17',
      '/calls/plain-call/fairness?to=300000000000000',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.message).toMatch(/^querystring\/(from|to) must be/);
    }
  });

  it('refuses ids beyond what JSON numbers hold exactly, on every route that takes one', async () => {
    const before = await state();
    const big = '99999999999999999999';
    for (const [method, path] of [
      ['GET', `/lab/campaigns/${big}`],
      ['POST', `/lab/campaigns/${big}/cancel`],
      ['POST', `/lab/runs/${big}/cancel`],
      ['DELETE', `/lab/agents/${big}`],
      ['DELETE', `/project/keys/${big}`],
    ] as const) {
      const res = await apiSend<{ message: string }>(t, method, path, key());
      expect(res.status, path).toBe(400);
      expect(res.body.message).toBe('params/id must be <= 9007199254740991');
    }
    expect(await state()).toEqual(before);
  });

  it('refuses a body nested too deep to walk, before anything walks it', async () => {
    const deep = `{"scenario":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const res = await fetch(`${t.url}/api/v1/lab/campaigns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' },
      body: deep,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^body\/scenario(\/a)+ is nested deeper than 32 levels$/);
    expect((await api<{ campaigns: unknown[] }>(t, '/lab/campaigns', key())).body.campaigns).toEqual([]);
  });

  it('takes a JSON body as sent: a number as a string, or in an array, is refused', async () => {
    for (const retentionDays of ['7', [30], 7.0001]) {
      const res = await apiSend<{ message: string }>(t, 'PATCH', '/project', key(), { retentionDays });
      expect(res.status, JSON.stringify(retentionDays)).toBe(400);
      expect(res.body.message).toMatch(/^body\/retentionDays/);
    }
    expect((await api<ProjectInfo>(t, '/project', key())).body.retentionDays).toBe(30);
    expect((await apiSend<ProjectInfo>(t, 'PATCH', '/project', key(), { retentionDays: 7 })).body.retentionDays).toBe(7);
  });

  it('searches call ids for the text itself: % and _ are not wildcards', async () => {
    const ids = async (q: string) => (await api<CallList>(t, `/calls?q=${encodeURIComponent(q)}`, key())).body.calls.map((c) => c.id);
    expect(await ids('%')).toEqual([]);
    expect(await ids('_')).toEqual(['under_score']);
    expect(await ids('r_s')).toEqual(['under_score']);
    expect(await ids('CALL')).toEqual(['plain-call']);
  });

  it('refuses a range that ends before it starts on fairness as on series', async () => {
    for (const what of ['series', 'fairness']) {
      expect(await get(`/calls/plain-call/${what}?from=2000&to=1000`)).toMatchObject({
        status: 400,
        body: { message: 'querystring/to must not be before from' },
      });
    }
  });

  it('takes the Bearer scheme in any case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await fetch(`${t.url}/api/v1/project`, { headers: { authorization: `${scheme} ${key()}` } });
      expect(res.status, scheme).toBe(200);
    }
  });
});

describe('answers that say nothing of the inside', () => {
  it('answers a failure of the server with a reference, not its source, query or database code', async () => {
    await t.db.pool.query('ALTER TABLE lab_agent RENAME TO lab_agent_away');
    try {
      const res = await get('/lab/agents');
      expect(res.status).toBe(500);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'statusCode']);
      expect(res.body.message).toMatch(/^the server failed to answer this request \(reference req-\w+\)/);
      expect(JSON.stringify(res.body)).not.toMatch(/prisma|\/work|\.ts|lab_agent|P20\d\d/i);
    } finally {
      await t.db.pool.query('ALTER TABLE lab_agent_away RENAME TO lab_agent');
    }
  });

  it('answers an id too long for a path with 414 in the same shape', async () => {
    const res = await get(`/calls/${'a'.repeat(2100)}`);
    expect(res).toEqual({
      status: 414,
      body: { statusCode: 414, error: 'URI Too Long', message: 'a path parameter is longer than any id can be' },
    });
    expect((await get(`/calls/${'a'.repeat(200)}`)).body.message).toBe('params/callId must NOT have more than 128 characters');
    // 128 characters of 4 bytes each is a valid id, 1536 characters long in the path.
    const astral = encodeURIComponent('😀'.repeat(128));
    expect(astral).toHaveLength(1536);
    expect(await get(`/calls/${astral}`)).toMatchObject({ status: 404, body: { message: 'no such call in this project' } });
  });

  it('tells a method a path does not answer (405, with Allow) from a path that does not exist (404)', async () => {
    const res = await fetch(`${t.url}/api/v1/lab/agents/7`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE');
    expect(await res.json()).toEqual({
      statusCode: 405,
      error: 'Method Not Allowed',
      message: 'PUT is not answered here; this path answers DELETE',
    });
    expect((await apiSend(t, 'POST', '/project/nothing', key())).status).toBe(404);
  });

  it('serves a valid OpenAPI document that says every answer a route may give', async () => {
    const document = (
      await api<{ openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
        t,
        '/openapi.json',
        key(),
      )
    ).body;
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const codes = Object.keys(operation.responses);
        expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '401', '429', '503']));
        if (path.includes('{')) expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(['404', '414']));
      }
    }
  });

  it('sends the headers a browser needs to protect the dashboard', async () => {
    const res = await fetch(`${t.url}/api/v1/project`, { headers: { authorization: `Bearer ${key()}` } });
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    // Tenant data and session secrets are kept by no cache: answers, errors and exports alike.
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(
      (await fetch(`${t.url}/api/v1/calls/none`, { headers: { authorization: `Bearer ${key()}` } })).headers.get('cache-control'),
    ).toBe('no-store');
    expect((await fetch(`${t.url}/api/v1/auth/me`)).headers.get('cache-control')).toBe('no-store');
  });
});

describe('clients behind a load balancer', () => {
  it("are each the client the trusted proxy names, for the REST rate limit and an SDK's country, and no one else's word is taken", async () => {
    const behind = await startTestServer(1, { apiRateLimit: 10, trustProxy: 1 });
    const direct = await startTestServer(1, { apiRateLimit: 10 });
    try {
      const ask = async (s: TestServer, client: string) =>
        (
          await fetch(`${s.url}/api/v1/project`, {
            headers: { authorization: `Bearer ${s.projects[0]!.apiKey}`, 'x-forwarded-for': client },
          })
        ).status;
      for (let k = 0; k < 10; k++) expect(await ask(behind, '203.0.113.1')).toBe(200);
      expect(await ask(behind, '203.0.113.1')).toBe(429);
      expect(await ask(behind, '203.0.113.2')).toBe(200);
      // With no proxy trusted, the header is anyone's to write: the connection's address is counted.
      for (let k = 0; k < 10; k++) expect(await ask(direct, `203.0.113.${k}`)).toBe(200);
      expect(await ask(direct, '203.0.113.99')).toBe(429);

      // An SDK's country comes from the client the proxy names (the connection's would be the proxy's),
      // and only from a proxy trusted; the address itself is stored nowhere.
      for (const s of [behind, direct]) {
        const socket = await ingestSocket(s.url, handshake(s.projects[0]!, 'from-afar', 'alice'), { 'x-forwarded-for': '81.2.69.142' });
        expect((await send(socket, { n: 0, t0: Date.now(), conns: [], streams: [], s: [], e: [] })).ok).toBe(true);
        socket.disconnect();
      }
      // Read from the tables: the REST budget of this minute is spent.
      const country = async (s: TestServer) =>
        (
          await s.db.pool.query<{ country: string | null }>(
            `SELECT p.country FROM participant p JOIN call c ON c.id = p.call_id WHERE c.external_id = 'from-afar'`,
          )
        ).rows[0]!.country;
      expect(await country(behind)).toBe('GB');
      expect(await country(direct)).toBeNull();
      const { rows } = await behind.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM participant p WHERE to_jsonb(p)::text LIKE '%81.2.69%' OR EXISTS (SELECT 1 FROM call c WHERE to_jsonb(c)::text LIKE '%81.2.69%')`,
      );
      expect(rows[0]!.n).toBe(0);
    } finally {
      await behind.close();
      await direct.close();
    }
  });
});
