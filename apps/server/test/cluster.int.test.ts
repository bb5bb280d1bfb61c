import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiKeyCreated, LivePoints } from '@rtcscope/protocol';
import pg from 'pg';
import { routeOf } from '@rtcscope/sdk';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually, freshDatabase, runAdmin } from './harness.js';
import { freePort } from './ports.js';
import { type ServerProcess, startServerProcess } from './server-process.js';
import { audit, streamingClient as clientOf } from './streaming-client.js';

const NGINX = '/usr/sbin/nginx';
const TEMPLATE = join(import.meta.dirname, '../../../infra/nginx/rtcscope.conf.template');
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-cluster-'));
chmodSync(dir, 0o755);

let database: Awaited<ReturnType<typeof freshDatabase>>;
const nodes: ServerProcess[] = [];
let nginx: ChildProcess;
let lb = '';
let keys: { apiKey: string; ingestKey: string };

/** The shipped load-balancer template, filled in for these nodes, in a minimal nginx main config. */
async function startNginx(upstreams: string[]): Promise<string> {
  const port = await freePort();
  const site = readFileSync(TEMPLATE, 'utf8')
    .replaceAll('${RTCSCOPE_UPSTREAM}', upstreams.map((u) => `server ${u};`).join(' '))
    .replace('${RTCSCOPE_LISTEN}', `127.0.0.1:${port}`);
  writeFileSync(join(dir, 'site.conf'), site);
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'nginx-error.log')} warn;
     events { worker_connections 1024; }
     http { access_log off; ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')} include ${join(dir, 'site.conf')}; }`,
  );
  execFileSync(NGINX, ['-t', '-c', join(dir, 'nginx.conf')], { stdio: 'pipe' });
  nginx = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  const killOnExit = () => nginx.kill('SIGKILL');
  process.once('exit', killOnExit);
  const answers = () =>
    fetch(`http://127.0.0.1:${port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
  await eventually(answers, Boolean, 5_000).catch(() => {
    throw new Error(`nginx did not answer: ${readFileSync(join(dir, 'nginx-error.log'), 'utf8')}`);
  });
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: npm test installs Debian's nginx-light (apt-get install nginx-light)`);
  database = await freshDatabase();
  // As a deployment for many customers runs: no local project on the nodes, projects made by the operator.
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: join(dir, 'data'),
    LIVE_ADAPTER: 'postgres',
    LOCAL_PROJECT: 'off',
    LOG_LEVEL: 'error',
    METRICS_TOKEN,
  };
  nodes.push(...(await Promise.all([0, 1, 2].map(async () => startServerProcess({ ...env, PORT: String(await freePort()) })))));
  expect(nodes[0]!.output()).toContain('LOCAL_PROJECT=off');
  const { code, out: made } = await runAdmin(database.url, 'create-project', 'Acme');
  expect(code).toBe(0);
  keys = { ingestKey: /ingest key:\s+(ik_\S+)/.exec(made)![1]!, apiKey: /API key:\s+(rk_\S+)/.exec(made)![1]! };
  lb = await startNginx(nodes.map((n) => new URL(n.url).host));
}, 120_000);

afterAll(async () => {
  nginx?.kill('SIGTERM');
  await Promise.all(nodes.map((n) => n.stop()));
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const METRICS_TOKEN = 'cluster-operator-token';
const streamingClient = (url: string, callId: string, participantId: string) => clientOf(url, keys.ingestKey, callId, participantId);

describe('three nodes behind nginx', () => {
  it('fans live points out to a dashboard on another node', async () => {
    // The operator-made keys work on every node.
    for (const node of nodes) {
      const res = await fetch(`${node.url}/api/v1/project`, { headers: { authorization: `Bearer ${keys.apiKey}` } });
      expect(await res.json()).toMatchObject({ name: 'Acme', ingestKey: keys.ingestKey });
    }
    const dashboard = io(`${nodes[0]!.url}/live`, { auth: { apiKey: keys.apiKey }, transports: ['websocket'] });
    await dashboard.timeout(5000).emitWithAck('subscribe', { callId: 'cross-node' });
    const points = new Promise<LivePoints>((resolve) => dashboard.once('points', resolve));
    const client = streamingClient(nodes[1]!.url, 'cross-node', 'alice');
    const got = await points;
    client.close();
    dashboard.disconnect();
    expect(got).toMatchObject({ callId: 'cross-node', participantId: 'alice' });
    expect(got.streams.length).toBeGreaterThan(0);
  });

  it("keeps each call's participants on one node, by the route its SDKs name", async () => {
    const ingestSockets = async (node: ServerProcess) => {
      const text = await (await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return Number(/^rtcscope_sockets\{namespace="ingest"\} (\d+)/m.exec(text)?.[1]);
    };
    for (const callId of ['routed-1', 'routed-2', 'routed-3', 'routed-4', 'routed-5', 'routed-6']) {
      const participants = ['ann', 'ben'].map((p) =>
        io(`${lb}/ingest`, {
          auth: { v: 1, key: keys.ingestKey, callId, participantId: p, session: `${p}-s` },
          query: { route: routeOf(callId) },
          transports: ['websocket'],
          reconnection: false,
        }),
      );
      await Promise.all(participants.map((s) => new Promise((resolve) => s.once('connect', () => resolve(null)))));
      // Without the route, least_conn would put the second socket on another node than the first.
      await vi.waitFor(async () => expect((await Promise.all(nodes.map(ingestSockets))).sort()).toEqual([0, 0, 2]), { timeout: 5000 });
      for (const s of participants) s.disconnect();
      await vi.waitFor(async () => expect(await Promise.all(nodes.map(ingestSockets))).toEqual([0, 0, 0]), { timeout: 5000 });
    }
  });

  it("serves each node's metrics to the operator on the node, never through the load balancer", async () => {
    const client = streamingClient(nodes[1]!.url, 'counted', 'carol');
    await vi.waitFor(() => expect(client.acked.size).toBeGreaterThan(2), { timeout: 5000 });
    client.close();
    const scrape = (url: string) => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const node = await scrape(nodes[1]!.url);
    expect(node.status).toBe(200);
    expect(await node.text()).toMatch(/^rtcscope_ingest_batches_total\{outcome="stored"\} [1-9]/m);
    expect((await scrape(lb)).status).toBe(404);
  });

  it("broadcasts a call's points between nodes only while a dashboard somewhere watches it", async () => {
    const listener = new pg.Client({ connectionString: database.url });
    listener.on('error', () => {}); // the database is dropped after the tests
    await listener.connect();
    const broadcasts: string[] = [];
    const announced: string[] = [];
    listener.on('notification', (n) => {
      if (n.payload?.includes('"points"')) broadcasts.push(n.payload);
      if (n.payload?.includes('"calls-changed"')) announced.push(n.payload);
    });
    await listener.query('LISTEN "socket.io#/live"');
    const client = streamingClient(nodes[2]!.url, 'watched-later', 'bob');
    const dashboard = io(`${nodes[0]!.url}/live`, { auth: { apiKey: keys.apiKey }, transports: ['websocket'] });
    const sentinel = streamingClient(nodes[2]!.url, 'sentinel-call', 'eve');
    try {
      await vi.waitFor(() => expect(client.acked.size).toBeGreaterThan(5), { timeout: 10_000 });
      // A sentinel: a new call on the same node, announced to every node (calls-changed is broadcast
      // whoever watches) after those batches were committed, is heard after their points would have been.
      sentinel.stop();
      await vi.waitFor(() => expect(sentinel.acked.size).toBeGreaterThan(0), { timeout: 10_000 });
      await vi.waitFor(() => expect(announced.some((p) => p.includes('sentinel-call'))).toBe(true), { timeout: 5000 });
      expect(broadcasts).toEqual([]);

      const points = new Promise<LivePoints>((resolve) => dashboard.once('points', resolve));
      await dashboard.timeout(5000).emitWithAck('subscribe', { callId: 'watched-later' });
      expect(await points).toMatchObject({ callId: 'watched-later', participantId: 'bob' });
      // The notification reaches this listener on its own connection, not necessarily before the dashboard.
      await vi.waitFor(() => expect(broadcasts.length).toBeGreaterThan(0), { timeout: 2000 });
    } finally {
      client.close();
      sentinel.close();
      dashboard.disconnect();
      await listener.end();
    }
  });

  it('refuses a revoked API key on every node at once, well before their key caches expire', async () => {
    const asKey = (url: string, key: string, init: RequestInit = {}) =>
      fetch(`${url}/api/v1/project/keys`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
    const made = await asKey(nodes[0]!.url, keys.apiKey, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'temporary', scopes: ['admin'] }),
    });
    expect(made.status).toBe(201);
    const { key, apiKey } = (await made.json()) as ApiKeyCreated;
    // Every node looks it up now, and would remember it for a minute.
    for (const node of nodes) expect((await asKey(node.url, apiKey)).status).toBe(200);

    const revoked = await fetch(`${nodes[1]!.url}/api/v1/project/keys/${key.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${keys.apiKey}` },
    });
    expect(revoked.status).toBe(204);
    for (const node of nodes) await expect.poll(async () => (await asKey(node.url, apiKey)).status, { timeout: 3000 }).toBe(401);
    for (const node of nodes) expect((await asKey(node.url, keys.apiKey)).status).toBe(200);
  });

  it(
    'loses no acknowledged sample when a node is killed mid-stream: its clients reconnect to the others',
    { timeout: 60_000 },
    async () => {
      const clients = [...Array(6).keys()].map((k) => ({ callId: `killed-${k}`, client: streamingClient(lb, `killed-${k}`, 'p0') }));
      await vi.waitFor(() => expect(Math.min(...clients.map((c) => c.client.acked.size))).toBeGreaterThan(5), { timeout: 10_000 });
      const ackedBefore = clients.map((c) => c.client.acked.size);

      await nodes[1]!.stop('SIGKILL');
      // Every client streams on: those of the killed node through the others.
      await vi.waitFor(() => expect(clients.every((c, k) => c.client.acked.size > ackedBefore[k]! + 10)).toBe(true), {
        timeout: 30_000,
        interval: 200,
      });
      for (const c of clients) c.client.stop();
      // What was sent before the stop is acknowledged once the clients are back.
      await vi.waitFor(() => expect(clients.every((c) => c.client.pending.size === 0)).toBe(true), { timeout: 10_000, interval: 100 });

      // The killed node had clients (least_conn spreads six over three nodes), and they came back.
      expect(clients.filter((c) => c.client.reconnects() > 0).length).toBeGreaterThan(0);
      for (const { client } of clients) client.close();
      expect(await audit(database.db.pool, clients)).toMatchObject({ missing: 0, doubled: 0, refused: 0 });
    },
  );
});
