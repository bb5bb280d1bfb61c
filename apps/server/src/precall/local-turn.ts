import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Db } from '../db/database.js';
import { setTurnSettings, turnSettings } from '../identity/projects/turn.js';
import { supervise } from '../jobs/child-process.js';

/**
 * A local install's TURN server: Debian's coturn in a child process on loopback, checking credentials
 * with a secret of the data folder's, and the local project told of it unless its settings name other
 * servers. The secret is in coturn's configuration file (owner-readable only), not on its command line,
 * which every user of the machine can read. coturn takes TLS on the same port (it tells TLS from plain
 * TCP by the first bytes), with a certificate for 127.0.0.1 made on the first start and kept beside.
 */
export async function startLocalTurn(
  db: Db,
  projectId: string,
  dataDir: string,
  port: number,
): Promise<{ urls: string[]; certificate: string; stop(): Promise<void> }> {
  const dir = join(dataDir, 'turn');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const conf = join(dir, 'turnserver.conf');
  const secret = localTurnSecret(dataDir) ?? randomBytes(24).toString('base64url');
  const { cert, key } = await certificate(dir);
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
      `cert=${cert}`,
      `pkey=${key}`,
      'no-dtls',
      'no-cli',
      'allow-loopback-peers',
      'log-file=stdout',
      'simple-log',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // TLS (turns:) is left out of the local project's servers: a browser refuses the self-signed certificate unless told to trust it.
  const urls = [`turn:127.0.0.1:${port}?transport=udp`, `turn:127.0.0.1:${port}?transport=tcp`];
  const current = await turnSettings(db, projectId);
  if (!current || current.urls.every((u) => urls.includes(u))) await setTurnSettings(db, projectId, { urls, secret });
  const child = spawn(process.env.TURNSERVER_PATH ?? '/usr/bin/turnserver', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { urls, certificate: cert, ...supervise(child, 'turn', 'pre-call tests find no relay', turnLineShown) };
}

/**
 * Whether a line of coturn's log is worth a person's terminal: its errors, but not the answers TURN
 * gives in its normal course, which coturn logs as errors too (every allocation is first answered
 * "401 Unauthorized" to hand the client its nonce; 438 is a nonce gone stale, 437 a refresh of an
 * allocation that already ended): `npm start` once printed those with no word of why.
 */
export function turnLineShown(line: string): boolean {
  return /error/i.test(line) && !/\berror (401|437|438)\b/i.test(line);
}

/** The TLS certificate's files, made once (a self-signed certificate for 127.0.0.1, good for ten years). */
async function certificate(dir: string): Promise<{ cert: string; key: string }> {
  const files = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  if (existsSync(files.cert) && existsSync(files.key)) return files;
  const now = new Date();
  const made = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 10 * 365 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  writeFileSync(files.key, made.private, { mode: 0o600 });
  writeFileSync(files.cert, made.cert, { mode: 0o600 });
  return files;
}

/** The secret the local coturn of a data folder checks credentials with, once a start made it. */
export function localTurnSecret(dataDir: string): string | undefined {
  const conf = join(dataDir, 'turn', 'turnserver.conf');
  return existsSync(conf) ? /^static-auth-secret=(\S+)$/m.exec(readFileSync(conf, 'utf8'))?.[1] : undefined;
}
