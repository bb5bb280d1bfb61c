import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns';
import http from 'node:http';
import { isIP } from 'node:net';
import https from 'node:https';
import ipaddr from 'ipaddr.js';

/** A receiver that has not answered in this long has failed this attempt. */
export const POST_TIMEOUT_MS = 10_000;
/** Of a receiver's answer, only the status matters; the rest is read up to this and dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Where webhooks may go: `public` unicast addresses only (a SaaS: a customer's endpoint must not reach
 * the operator's network), `any` (a server on one's own machine), or `loopback` only (tests, whose
 * traffic stays on this machine: no name but localhost is even looked up).
 */
export type WebhookTargets = 'public' | 'any' | 'loopback';

const RANGES: Record<WebhookTargets, (range: string) => boolean> = {
  public: (range) => range === 'unicast',
  any: () => true,
  loopback: (range) => range === 'loopback',
};
const allowed = (targets: WebhookTargets, address: string) => RANGES[targets](ipaddr.process(address).range());
const refusal = (hostname: string, address: string, targets: WebhookTargets) =>
  Object.assign(new Error(`${hostname} is ${address}, which webhooks may not reach (${targets === 'public' ? 'not a public address; WEBHOOK_PRIVATE_ADDRESSES=allow lets it through' : `only ${targets} addresses are`})`), {
    code: 'EREFUSED_TARGET',
  });

/** Resolves as Node would, then refuses an address `targets` does not allow: checked as the connection is made, so a name resolving anew elsewhere cannot slip by. */
function guardedLookup(targets: WebhookTargets) {
  return (hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !allowed(targets, a.address));
      if (refused) return callback(refusal(hostname, refused.address, targets), []);
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** POSTs a JSON body; never throws: a refusal, a timeout or a broken connection is an error in the result. */
export function postJson(url: string, body: string, headers: Record<string, string>, targets: WebhookTargets): Promise<PostResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): PostResult => ({ statusCode, error, durationMs: performance.now() - started });
  return new Promise((resolve) => {
    const target = new URL(url);
    // An address in the URL is connected to without a lookup: it is checked here.
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal) && !allowed(targets, literal)) return resolve(done(null, refusal(literal, literal, targets).message));
    if (!isIP(literal) && targets === 'loopback' && literal !== 'localhost') return resolve(done(null, `${literal} is not looked up: only loopback addresses are reached`));
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'rtcscope-webhooks/1', ...headers },
        lookup: guardedLookup(targets),
        timeout: POST_TIMEOUT_MS,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('close', () => resolve(done(response.statusCode ?? null, null)));
        response.on('error', () => {});
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${POST_TIMEOUT_MS / 1000} s`)));
    request.on('error', (err) => resolve(done(null, err.message)));
    request.end(body);
  });
}
