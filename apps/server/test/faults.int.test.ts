import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from './ports.js';
import { type ServerProcess, startServerProcess } from './server-process.js';
import { audit, type StreamingClient, streamingClient } from './streaming-client.js';

/**
 * The product as `npm start` runs it (the server and its embedded PostgreSQL), with 50 SDK-like clients
 * streaming, through the faults an operator meets: the server killed, and PostgreSQL killed.
 */
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-faults-'));
chmodSync(dir, 0o755);
const CLIENTS = 50;
let env: Record<string, string>;
let server: ServerProcess;
let ingestKey: string;
let pool: pg.Pool;

beforeAll(async () => {
  env = { DATA_DIR: join(dir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info' };
  server = await startServerProcess(env);
  ingestKey = (JSON.parse(readFileSync(join(env.DATA_DIR!, 'local-project.json'), 'utf8')) as { ingestKey: string }).ingestKey;
  const password = readFileSync(join(env.DATA_DIR!, 'pg-password'), 'utf8').trim();
  pool = new pg.Pool({ connectionString: `postgresql://postgres:${password}@127.0.0.1:${env.EMBEDDED_PG_PORT}/rtcscope`, max: 2 });
  pool.on('error', () => {}); // its idle connections die with the database killed below
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await server?.stop('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** 50 clients stream for a few seconds, live through `fault`, and carry on until all they sent is acknowledged. */
async function streamThrough(name: string, fault: () => Promise<void>) {
  const clients = Array.from({ length: CLIENTS }, (_, k) => ({
    callId: `${name}-${k}`,
    client: streamingClient(server.url, ingestKey, `${name}-${k}`, 'p0'),
  }));
  const all = (f: (c: StreamingClient) => boolean) => clients.every(({ client }) => f(client));
  try {
    await vi.waitFor(() => expect(all((c) => c.acked.size >= 20)).toBe(true), { timeout: 30_000, interval: 200 });
    await fault();
    const before = clients.map(({ client }) => client.acked.size);
    // Streaming again: every client has new batches acknowledged after the fault.
    await vi.waitFor(() => expect(clients.every(({ client }, k) => client.acked.size >= before[k]! + 20)).toBe(true), {
      timeout: 60_000,
      interval: 200,
    });
    for (const { client } of clients) client.stop();
    await vi.waitFor(() => expect(all((c) => c.pending.size === 0)).toBe(true), { timeout: 30_000, interval: 200 });
  } finally {
    for (const { client } of clients) client.close();
  }
  const counts = await audit(pool, clients);
  console.log(`${name}: ${JSON.stringify(counts)}`);
  return { counts, log: server.output() };
}

describe(`faults while ${CLIENTS} SDKs stream`, () => {
  it('a server killed and started again loses no acknowledged sample and stores none twice', { timeout: 180_000 }, async () => {
    const { counts } = await streamThrough('server-kill', async () => {
      await server.stop('SIGKILL');
      server = await startServerProcess(env);
    });
    expect(counts).toMatchObject({ clients: CLIENTS, missing: 0, doubled: 0, refused: 0 });
    expect(counts.acknowledged).toBeGreaterThan(CLIENTS * 80);
  });

  it(
    'PostgreSQL killed: the product recovers by itself, says so, and every acknowledged sample is stored exactly once',
    { timeout: 180_000 },
    async () => {
      const health: string[] = [];
      const { counts, log } = await streamThrough('database-kill', async () => {
        const postmaster = Number(readFileSync(join(env.DATA_DIR!, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(postmaster, 'SIGKILL');
        // Unavailable, and says so without internals; then back, with no one restarting anything.
        for (const want of [503, 200]) {
          await vi.waitFor(
            async () => {
              const res = await fetch(`${server.url}/healthz`);
              health.push(`${res.status} ${await res.text()}`);
              expect(res.status).toBe(want);
            },
            { timeout: 30_000, interval: 50 },
          );
        }
      });
      expect(health).toContain('503 {"ok":false,"error":"database unavailable"}');
      expect(health.at(-1)).toBe('200 {"ok":true}');
      expect(counts).toMatchObject({ clients: CLIENTS, missing: 0, doubled: 0, refused: 0 });
      expect(counts.acknowledged).toBeGreaterThan(CLIENTS * 80);
      // The server went on all along; the operator reads what happened, once each.
      expect(server.process.exitCode).toBeNull();
      expect(log).toMatch(/PostgreSQL \(pid \d+\) stopped unexpectedly; starting it again/);
      expect(log).toMatch(/PostgreSQL is back \(pid \d+\)/);
      expect(log.match(/the database is unavailable: SDK batches are refused/g)).toHaveLength(1);
      expect(log).toMatch(/the database is back after [\d.]+ s/);
    },
  );
});
