import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBombs } from './bombs.js';
import { emptyDatabase } from './harness.js';
import { healthWhile } from './health-probe.js';
import { freePort } from './ports.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

// The server in a process of its own, as it runs: its memory is its own, and a stalled event loop shows
// as a health check that waits.
let server: ServerProcess;
let database: { url: string; drop(): Promise<void> };
let apiKey: string;
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bombs-'));
// A spool that a killed import left: a process that has ended owned it.
const ended = spawnSync(process.execPath, ['-e', '0']).pid;
const orphan = join(tmpdir(), `rtcscope-recording-${ended}-crashed`);

beforeAll(async () => {
  mkdirSync(orphan, { recursive: true });
  database = await emptyDatabase();
  server = await startServerProcess({
    DATABASE_URL: database.url,
    DATA_DIR: join(dir, 'data'),
    PORT: String(await freePort()),
    LOG_LEVEL: 'error',
  });
  apiKey = (JSON.parse(readFileSync(join(dir, 'data', 'local-project.json'), 'utf8')) as { apiKey: string }).apiKey;
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('import bombs (issue 32)', () => {
  it('removes the spooled copy that an import of an ended process left', () => {
    expect(existsSync(orphan)).toBe(false);
  });

  it('refuses each, naming the bound it crosses, stores nothing, and keeps answering its health check', { timeout: 300_000 }, async () => {
    for (const bomb of importBombs()) {
      const upload = fetch(`${server.url}/api/v1/recordings?name=bomb`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(bomb.file),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { message: string } }));
      const { result, latencies } = await healthWhile(server.url, upload);
      expect(result.status, bomb.name).toBe(400);
      expect(result.body.message, bomb.name).toMatch(bomb.refusal);
      // Before the bounds a nested file stalled the health check for 14.5 s; a chunk's work is now milliseconds.
      expect(Math.max(...latencies), `${bomb.name}: slowest health check`).toBeLessThan(2_000);
    }
    const calls = await fetch(`${server.url}/api/v1/calls`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await calls.json()) as { calls: unknown[] }).calls).toEqual([]);
  });
});
