import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db/database.js';
import { setTurnSettings, turnSettings } from '../identity/projects/turn.js';
import { supervise } from '../jobs/child-process.js';

/**
 * A local install's TURN server: Debian's coturn in a child process on loopback, checking credentials
 * with a secret of the data folder's, and the local project told of it unless its settings name other
 * servers. The secret is in coturn's configuration file (owner-readable only), not on its command line,
 * which every user of the machine can read.
 */
export async function startLocalTurn(
  db: Db,
  projectId: string,
  dataDir: string,
  port: number,
): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const dir = join(dataDir, 'turn');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const conf = join(dir, 'turnserver.conf');
  const kept = existsSync(conf) ? /^static-auth-secret=(\S+)$/m.exec(readFileSync(conf, 'utf8'))?.[1] : undefined;
  const secret = kept ?? randomBytes(24).toString('base64url');
  writeFileSync(
    conf,
    [
      'listening-ip=127.0.0.1',
      'relay-ip=127.0.0.1',
      `listening-port=${port}`,
      'use-auth-secret',
      `static-auth-secret=${secret}`,
      'realm=rtcscope.local',
      'fingerprint',
      'no-tls',
      'no-dtls',
      'no-cli',
      'allow-loopback-peers',
      'log-file=stdout',
      'simple-log',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const urls = [`turn:127.0.0.1:${port}?transport=udp`, `turn:127.0.0.1:${port}?transport=tcp`];
  const current = await turnSettings(db, projectId);
  if (!current || current.urls.every((u) => urls.includes(u))) await setTurnSettings(db, projectId, { urls, secret });
  const child = spawn(process.env.TURNSERVER_PATH ?? '/usr/bin/turnserver', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { urls, ...supervise(child, 'turn', 'pre-call tests find no relay', (line) => /error/i.test(line)) };
}
