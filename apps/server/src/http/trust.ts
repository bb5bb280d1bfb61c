import proxyaddr from 'proxy-addr';
import type { Config } from '../config.js';

export type TrustProxy = Config['trustProxy'];

/**
 * Which proxies' `X-Forwarded-For` names the client, for REST requests and SDK sockets alike: none, a
 * hop count (that many proxies from this server outwards), or the proxies' addresses and ranges.
 */
export function trustOf(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyaddr.compile(trust);
}
