import { mkdtempSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallList } from '@rtcscope/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { handshake, ingestSocket, send } from './harness.js';
import { freePort } from './ports.js';
import { startServerProcess } from './server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-start-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the start command on the embedded database', () => {
  it('keeps data and keys across restarts, also after the server was killed', { timeout: 120_000 }, async () => {
    const env = { DATA_DIR: join(dir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    let server = await startServerProcess(env);
    expect(server.output()).toContain('embedded PostgreSQL');
    const project = JSON.parse(readFileSync(join(env.DATA_DIR, 'local-project.json'), 'utf8'));
    expect(server.output()).toContain(project.ingestKey);
    const socket = await ingestSocket(server.url, handshake(project, 'kept-call', 'a'));
    expect(await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] })).toMatchObject({
      ok: true,
      stored: 1,
    });
    socket.disconnect();

    // Killed without warning: its PostgreSQL is left running on the folder; the next start copes.
    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    try {
      const res = await fetch(`${server.url}/api/v1/calls`, { headers: { authorization: `Bearer ${project.apiKey}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as CallList).calls.map((c) => c.id)).toEqual(['kept-call']);
      expect(JSON.parse(readFileSync(join(env.DATA_DIR, 'local-project.json'), 'utf8'))).toEqual(project);
    } finally {
      await server.stop('SIGTERM');
    }
    expect(server.process.exitCode).toBe(0);
  });
});
