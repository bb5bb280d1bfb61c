import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AlertRule } from '@rtcscope/protocol';
import { freePort, type ServerProcess, startServerProcess } from '@rtcscope/server/testing';

export interface Product {
  env: { DATABASE_URL: string; DATA_DIR: string; PORT: string } & Record<string, string>;
  server: ServerProcess;
  keys: { apiKey: string; ingestKey: string; projectId: string };
  /** The one-time sign-in link for the local owner that the start printed. */
  signInLink: string;
}

/**
 * Starts rtcscope as the README's start command does, on the run's PostgreSQL and a data folder of its
 * own (so each test has its own local project), and reads the keys and the sign-in link the start printed.
 */
export async function startProduct(name: string, extraEnv: Record<string, string> = {}): Promise<Product> {
  const env: Product['env'] = {
    DATABASE_URL: process.env.E2E_DATABASE_URL!,
    DATA_DIR: join(process.env.E2E_DIR!, name),
    PORT: String(await freePort()),
    ...extraEnv,
  };
  const server = await startServerProcess(env);
  const keys = JSON.parse(readFileSync(join(env.DATA_DIR, 'local-project.json'), 'utf8')) as Product['keys'];
  const signInLink = /sign in: +(\S+)/.exec(server.output())?.[1];
  if (!signInLink) throw new Error(`the start printed no sign-in link:\n${server.output()}`);
  return { env, server, keys, signInLink };
}

/** A reader of the product's REST API with its API key: `get<CallDetail>('/calls/c1')`. */
export function apiReader(p: Pick<Product, 'server' | 'keys'>): <T>(path: string) => Promise<T> {
  return async <T>(path: string) =>
    (await (await fetch(`${p.server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${p.keys.apiKey}` } })).json()) as T;
}

/**
 * A support team's rule on loss, made through the API: a lab call's downlink loss pages (a lab run is
 * left alone by production's rules, so it includes the lab). How these tests count the alerts of a cause.
 */
export async function downlinkLossRule(p: Pick<Product, 'server' | 'keys'>): Promise<AlertRule> {
  const response = await fetch(`${p.server.url}/api/v1/alerts/rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.keys.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Packets lost on the way in',
      enabled: true,
      condition: { kind: 'call-issue', issueType: 'downlink-loss' },
      includeLab: true,
    }),
  });
  return (await response.json()) as AlertRule;
}

/** The local coturn's TLS key as Chromium's --ignore-certificate-errors-spki-list names it: SHA-256 of its SPKI, base64. */
export function localTurnKey(dataDir: string): string {
  const cert = new X509Certificate(readFileSync(join(dataDir, 'turn', 'cert.pem')));
  return createHash('sha256')
    .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
}
