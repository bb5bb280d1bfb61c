import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import { writeY4m } from '@rtcscope/lab';

/**
 * One PostgreSQL outside the server process (so a test can kill the server and the data stays, as with
 * a real database server) and a camera clip generated now rather than committed.
 */
export default async function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-e2e-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user when we are root
  const y4m = join(dir, 'camera-640x360.y4m');
  await writeY4m(y4m, { width: 640, height: 360, fps: 30, seconds: 4 });
  const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), (line) => console.error(line));
  process.env.E2E_DIR = dir;
  process.env.E2E_Y4M = y4m;
  process.env.E2E_DATABASE_URL = pg.url;
  return async () => {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
