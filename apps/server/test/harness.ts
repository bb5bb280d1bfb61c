import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Batch, IngestAck, IngestHandshake, LiveSubscribe } from '@rtcscope/protocol';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { inject, vi } from 'vitest';
import { buildServer, type RtcscopeServer } from '../src/app.js';
import { createProject, type NewProject } from '../src/identity/keys/keys.js';
import type { Limits } from '../src/identity/accounts/limits.js';
import { loadConfig } from '../src/config.js';
import { type Database, openDatabase } from '../src/db/database.js';

/** A fresh database on the run's PostgreSQL, migrated by the product's own runner. */
export async function freshDatabase(): Promise<{ db: Database; url: string; drop(): Promise<void> }> {
  const empty = await emptyDatabase();
  const db = await openDatabase(empty.url, { poolSize: 4 });
  return {
    db,
    url: empty.url,
    drop: async () => {
      await db.close();
      await empty.drop();
    },
  };
}

/** A fresh database with nothing in it: its URL, and how to drop it (even while connections remain). */
export async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(inject('postgresUrl'));
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base.toString() });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface TestServer {
  url: string;
  db: Database;
  /** The test's own database, for commands run beside the server. */
  databaseUrl: string;
  server: RtcscopeServer;
  projects: NewProject[];
  /** Stops the server and starts a new one on the same database and port, as after a crash. */
  restart(): Promise<void>;
  /** Starts another server node on the same database (stopped with the first); its URL. */
  addNode(): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(
  projectCount = 1,
  options: {
    callIdleTimeoutS?: number;
    labAgentGraceS?: number;
    metricsToken?: string;
    projectIngestLimit?: number;
    projectLiveCalls?: number;
    apiRateLimit?: number;
    trustProxy?: number;
    signInLimits?: Limits;
    smtpUrl?: string;
    publicUrl?: string;
    /** DNS servers (`127.0.0.1:port`) single sign-on asks for domain proofs; none: it asks no DNS. */
    dnsServers?: string[];
    /** Take clients' messages compressed (`INGEST_COMPRESSION=on`). */
    ingestCompression?: boolean;
    /** Every log line the server writes, at debug level and above, is pushed here. */
    logs?: string[];
  } = {},
): Promise<TestServer> {
  const fresh = await freshDatabase();
  const config = {
    callIdleTimeoutS: options.callIdleTimeoutS ?? 30,
    sweepIntervalS: 1,
    labAgentGraceS: options.labAgentGraceS ?? 30,
    // Tests run compaction and retention themselves, at the times they choose.
    storageJobs: false,
    metricsToken: options.metricsToken,
    projectIngestLimit: options.projectIngestLimit ?? loadConfig({}).projectIngestLimit,
    projectLiveCalls: options.projectLiveCalls ?? loadConfig({}).projectLiveCalls,
    apiRateLimit: options.apiRateLimit ?? loadConfig({}).apiRateLimit,
    trustProxy: options.trustProxy ?? (false as const),
    // The tests' webhook receivers listen on loopback, and no test's traffic leaves this machine.
    outboundTargets: 'loopback' as const,
    signInLimits: options.signInLimits,
    smtpUrl: options.smtpUrl,
    publicUrl: options.publicUrl,
    dnsServers: options.dnsServers,
    ingestCompression: options.ingestCompression ?? false,
    ...(options.logs
      ? { logLevel: 'debug' as const, logStream: { write: (line: string) => void options.logs!.push(line) } }
      : {
          logLevel: process.env.TEST_LOG_LEVEL === 'error' ? ('error' as const) : ('silent' as const),
        }),
  };
  const listen = async (port: number) => {
    const server = await buildServer(fresh.db, config);
    await server.app.listen({ port, host: '127.0.0.1' });
    const address = server.app.server.address();
    return { server, port: typeof address === 'object' && address ? address.port : 0 };
  };
  const first = await listen(0);
  const projects: NewProject[] = [];
  for (let k = 0; k < projectCount; k++) projects.push(await createProject(fresh.db, `project ${k}`));
  const others: RtcscopeServer[] = [];
  const t: TestServer = {
    url: `http://127.0.0.1:${first.port}`,
    db: fresh.db,
    databaseUrl: fresh.url,
    server: first.server,
    projects,
    restart: async () => {
      await t.server.close();
      t.server = (await listen(first.port)).server;
    },
    addNode: async () => {
      const node = await listen(0);
      others.push(node.server);
      return `http://127.0.0.1:${node.port}`;
    },
    close: async () => {
      await Promise.all([t.server, ...others].map((s) => s.close()));
      await fresh.drop();
    },
  };
  return t;
}

export function handshake(project: NewProject, callId: string, participantId: string, session = 's1'): IngestHandshake {
  return { v: 1, key: project.ingestKey, callId, participantId, session };
}

/** A raw SDK-side socket for tests that need to send exact bytes; `headers` as a browser would send them. */
export async function ingestSocket(url: string, auth: unknown, headers?: Record<string, string>): Promise<Socket> {
  const socket = io(`${url}/ingest`, {
    auth: auth as Record<string, unknown>,
    transports: ['websocket'],
    reconnection: false,
    ...(headers ? { extraHeaders: headers } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => reject(err));
  });
  return socket;
}

/** A dashboard's live socket, subscribed before it is returned. */
export async function dashboardSocket(t: TestServer, apiKey: string, subscription: LiveSubscribe): Promise<Socket> {
  const socket = io(`${t.url}/live`, { auth: { apiKey }, transports: ['websocket'] });
  await socket.timeout(5000).emitWithAck('subscribe', subscription);
  return socket;
}

export function send(socket: Socket, batch: Batch | Record<string, unknown>): Promise<IngestAck> {
  return socket.timeout(10_000).emitWithAck('batch', batch) as Promise<IngestAck>;
}

export async function api<T>(t: TestServer, path: string, apiKey: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.url}/api/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, body: (await res.json()) as T };
}

/**
 * What `read` gives once `ok` holds of it, read again every 100 ms (the one poll helper of the tests):
 * a test waits on a condition, never for a time. Past `timeoutMs` it fails with the last value read.
 */
export function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await read();
      if (!ok(v)) throw new Error(`still not so after ${timeoutMs / 1000} s; last read: ${JSON.stringify(v)?.slice(0, 500)}`);
      return v;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

export async function count(db: Database, table: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

/** A REST call with a JSON body (POST, DELETE, …). */
export async function apiSend<T>(
  t: TestServer,
  method: string,
  path: string,
  apiKey: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** The operator's command (admin.ts) on a test's database, as a deployment runs it: what it printed and its exit code. */
export function runAdmin(databaseUrl: string, ...args: string[]): Promise<{ code: number; out: string }> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/server/src/admin.ts', ...args], {
    cwd: join(import.meta.dirname, '../../..'),
    env: { ...process.env, DATABASE_URL: databaseUrl },
  }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (err: { code: number; stderr: string }) => ({ code: err.code, out: err.stderr }),
  );
}
