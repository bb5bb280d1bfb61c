import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { freePort } from './ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * One real PostgreSQL for the integration run: TEST_DATABASE_URL's server if set (each test file gets
 * its own database on it), else an embedded one in a temporary folder, removed afterwards.
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgresUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-pg-'));
  const pg = await startEmbeddedPostgres(dir, await freePort(), (line) => console.error(line));
  project.provide('postgresUrl', pg.url);
  return async () => {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
