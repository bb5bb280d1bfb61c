import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where the server's own requests out (webhooks, single sign-on providers) may go: `public` unicast
 * addresses only (a SaaS: a customer's URL must not reach the operator's network), `any` (a server on
 * one's own machine), or `loopback` only (tests, whose traffic stays on this machine: no name but
 * localhost is even looked up).
 */
export type OutboundTargets = 'public' | 'any' | 'loopback';

const RANGES: Record<OutboundTargets, (range: string) => boolean> = {
  public: (range) => range === 'unicast',
  any: () => true,
  loopback: (range) => range === 'loopback',
};
const allowed = (targets: OutboundTargets, address: string) => RANGES[targets](ipaddr.process(address).range());
/**
 * The error for an address `targets` does not allow. A name's address is not told: the answer goes to
 * whoever set the URL, and the operator's own DNS must not be mapped through it.
 */
const refusal = (hostname: string, literal: boolean, targets: OutboundTargets) =>
  Object.assign(
    new Error(
      `${hostname} ${literal ? 'is an address' : 'resolves to an address'} this server may not reach (${targets === 'public' ? 'not a public address; WEBHOOK_PRIVATE_ADDRESSES=allow lets it through' : `only ${targets} addresses are`})`,
    ),
    { code: REFUSED_TARGET },
  );
/** The code of an error for a target the guard refused: it will be refused again, so it is not retried. */
export const REFUSED_TARGET = 'EREFUSED_TARGET';

/** Resolves as Node would, then refuses an address `targets` does not allow: checked as the connection is made, so a name resolving anew elsewhere cannot slip by. */
export function guardedLookup(targets: OutboundTargets) {
  return (
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !allowed(targets, a.address));
      if (refused) return callback(refusal(hostname, false, targets), []);
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Why a URL's host may not be reached before any lookup (an address in it is connected to without one), or null. */
export function literalRefusal(url: URL, targets: OutboundTargets): string | null {
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) && !allowed(targets, literal)) return refusal(literal, true, targets).message;
  if (!isIP(literal) && targets === 'loopback' && literal !== 'localhost')
    return `${literal} is not looked up: only loopback addresses are reached`;
  return null;
}

/** The largest answer a fetch through `guardedFetch` reads (discovery documents, keys, tokens). */
const MAX_FETCHED_BYTES = 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/**
 * A `fetch` (for libraries that take one, like openid-client) whose connections go only where `targets`
 * allows, answering within 10 s and 1 MB. It follows no redirect.
 */
export function guardedFetch(targets: OutboundTargets) {
  return (url: string, options: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Response> =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const refused = literalRefusal(target, targets);
      if (refused) return reject(new Error(refused));
      const body =
        options.body === undefined || options.body === null
          ? undefined
          : options.body instanceof Uint8Array
            ? options.body
            : String(options.body);
      const request = (target.protocol === 'https:' ? https : http).request(
        target,
        { method: options.method, headers: options.headers, lookup: guardedLookup(targets), timeout: FETCH_TIMEOUT_MS },
        (response) => {
          const chunks: Buffer[] = [];
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_FETCHED_BYTES) return response.destroy(new Error(`${target.host} answered more than 1 MB`));
            chunks.push(chunk);
          });
          response.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers))
              if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
            resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 502, headers }));
          });
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`${target.host} did not answer in ${FETCH_TIMEOUT_MS / 1000} s`)));
      request.on('error', reject);
      request.end(body);
    });
}
