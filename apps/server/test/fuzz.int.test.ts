import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSend, eventually, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { freePort } from './ports.js';

/**
 * Schemathesis, a property-based fuzzer, over the served OpenAPI document: it makes thousands of
 * requests from the document's schemas (boundary values, wrong types, missing fields, unknown methods,
 * no key) and checks every answer against the document. Between it and the server, a proxy of this
 * test's looks at both tenants' stored state around each request: a request with one tenant's key must
 * never change the other's, and a refused request must change nothing at all.
 */
const SCHEMATHESIS = join(import.meta.dirname, '../../../.tools/venv/bin/schemathesis');
const EXAMPLES = Number(process.env.FUZZ_EXAMPLES ?? 150);

let t: TestServer;
let proxy: Server;
let proxyUrl: string;
const violations: string[] = [];
const answered = new Map<number, number>();
const work = mkdtempSync(join(tmpdir(), 'rtcscope-fuzz-'));
// No links inferred from answers for the stateful phase: schemathesis 4.32 scans 2xx bodies for URLs and
// aborts the run (an internal error, "Invalid IPv6 URL") on a stored string it generated itself, such as
// a name "/[" — a fault of the tool's, met on one run in three.
const CONFIG = join(work, 'schemathesis.toml');
writeFileSync(CONFIG, '[phases.stateful.inference]\nalgorithms = []\n');

/**
 * Every table a tenant owns, as one digest per tenant; times the server itself moves (last used, last
 * seen, summarized) left out, and what its jobs write (alerts, notifications, deliveries, summaries).
 */
async function tenants(): Promise<Map<string, string>> {
  const digest = (table: string, leave = '') =>
    `(SELECT md5(coalesce(string_agg((to_jsonb(x) ${leave})::text, ',' ORDER BY x.id), '')) FROM ${table} x WHERE x.project_id = p.id)`;
  const { rows } = await t.db.pool.query<{ id: string; state: string }>(
    `SELECT p.id, md5(concat_ws('|', to_jsonb(p)::text, ${digest('api_key', "- 'last_used_at'")}, ${digest('call', "- 'summarized_at' - 'summarized_end'")}, ${digest('participant')},
       ${digest('connection')}, ${digest('stream')}, ${digest('call_event')}, ${digest('lab_agent', "- 'last_seen_at'")},
       ${digest('lab_campaign')}, ${digest('lab_run')}, ${digest('alert_rule')}, ${digest('webhook_endpoint')})) AS state
     FROM project p`,
  );
  return new Map(rows.map((r) => [r.id, r.state]));
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** One request to the server as it came (any method, even those fetch refuses, like TRACE). */
function forward(req: IncomingMessage, sent: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; answer: Buffer }> {
  const target = new URL(t.url);
  return new Promise((resolve, reject) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (res) => {
        body(res).then((answer) => resolve({ status: res.statusCode ?? 0, headers: res.headers, answer }), reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(sent);
  });
}

/** Forwards each request to the server, one at a time (the fuzzer runs one worker), and judges what it changed. */
function judgingProxy(): Server {
  // As long a request line as the server takes (app.ts), or the proxy would answer 431 in its place.
  return createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    void (async () => {
      const sent = await body(req);
      const before = await tenants();
      const { status, headers, answer } = await forward(req, sent);
      const after = await tenants();
      const [a, b] = t.projects;
      const what = `${req.method} ${req.url} → ${status}`;
      if (before.get(b!.projectId) !== after.get(b!.projectId)) violations.push(`${what} changed the other tenant's data`);
      if (status >= 400 && before.get(a!.projectId) !== after.get(a!.projectId)) violations.push(`${what} was refused but changed data`);
      answered.set(status, (answered.get(status) ?? 0) + 1);
      res.writeHead(status, headers).end(answer);
    })().catch((err: Error) => {
      violations.push(`the proxy failed on ${req.method} ${req.url}: ${err.message}`);
      res.writeHead(502).end();
    });
  });
}

/** Runs schemathesis over the proxy; what it printed and its exit code. */
function schemathesis(apiKey: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    SCHEMATHESIS,
    [
      ...['--config-file', CONFIG],
      'run',
      `${proxyUrl}/api/v1/openapi.json`,
      ...['--header', `Authorization: Bearer ${apiKey}`],
      ...['--workers', '1', '--max-examples', String(EXAMPLES), '--checks', 'all'],
      // Semantic rules refuse some requests their schemas allow (a scenario whose schedule runs past its
      // end, the project's last key): refused with 400/409 as documented, which this check calls wrong.
      ...['--exclude-checks', 'positive_data_acceptance'],
      ...args,
    ],
    { cwd: work, env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' } },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

beforeAll(async () => {
  if (!existsSync(SCHEMATHESIS)) throw new Error(`${SCHEMATHESIS} is missing: npm test installs schemathesis into .tools/venv`);
  // Two tenants with calls, keys, agents and campaigns, the second only there to be left alone.
  t = await startTestServer(2, { apiRateLimit: 1_000_000 });
  for (const p of t.projects) {
    const socket = await ingestSocket(t.url, handshake(p, 'fuzzed-call', 'alice'));
    expect(
      await send(socket, {
        n: 0,
        t0: Date.now() - 5000,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 }],
        s: [[0, 0, 0, 500]],
        bye: true,
      }),
    ).toMatchObject({ ok: true });
    socket.disconnect();
    expect((await apiSend(t, 'POST', '/project/keys', p.apiKey, { name: 'second' })).status).toBe(201);
    expect((await apiSend(t, 'POST', '/lab/agents', p.apiKey, { name: 'agent' })).status).toBe(201);
    expect((await apiSend(t, 'POST', '/lab/campaigns', p.apiKey, { scenario: 'static-bw' })).status).toBe(201);
  }
  // The calls end (their participant said goodbye) and are rolled up by the server's sweeper first, so
  // nothing but the fuzzer's requests changes the data from here on.
  const unrolled = async () =>
    (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM call WHERE rolled_up_at IS NULL')).rows[0]!.n;
  await eventually(unrolled, (n) => n === 0);
  proxy = judgingProxy();
  const port = await freePort();
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the REST API under a schema fuzzer, with two tenants', () => {
  it(
    'answers every request as its document says, never with a 5xx, and changes nothing it refused or does not own',
    { timeout: 600_000 },
    async () => {
      const key = t.projects[0]!.apiKey;
      // Revoking keys last: the fuzzer would revoke the key it runs with, and every later request be a 401.
      const revoke = '/api/v1/project/keys/{id}';
      const runs = [await schemathesis(key, '--exclude-path', revoke), await schemathesis(key, '--include-path', revoke)];
      const requests = [...answered.values()].reduce((a, b) => a + b, 0);
      console.log(`fuzz: ${requests} requests, answers ${JSON.stringify(Object.fromEntries([...answered].sort()))}`);
      for (const run of runs)
        console.log(
          run.out
            .split('\n')
            .filter((l) => /Test cases:|Seed:|passed|failures|❌/.test(l))
            .join('\n'),
        );
      for (const run of runs) expect(run.code, run.out).toBe(0);
      expect(violations).toEqual([]);
      expect([...answered.keys()].filter((status) => status >= 500)).toEqual([]);
      expect(requests).toBeGreaterThan(1000);
    },
  );
});
