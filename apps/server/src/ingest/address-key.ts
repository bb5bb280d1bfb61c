import ipaddr from 'ipaddr.js';

/**
 * A client address as per-address limits count it: an IPv4 address alone, an IPv6 one by its /64 (one
 * subscriber's network hands out the rest of that prefix at will, so a flood would otherwise count as
 * many clients). Null for loopback, which per-address limits leave alone: a proxy on this machine whose
 * clients the server is not told to trust (`TRUST_PROXY`) would otherwise make every client one, and
 * the load benches and tests run from it.
 */
export function addressKey(address: string | undefined): string | null {
  if (!address || !ipaddr.isValid(address)) return address ?? 'unknown';
  const ip = ipaddr.process(address);
  if (ip.range() === 'loopback') return null;
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
