import ipaddr from 'ipaddr.js';

/**
 * A client address as per-address limits count it: an IPv4 address alone, an IPv6 one by its /64 (one
 * subscriber's network hands out the rest of that prefix at will, so a flood would otherwise count as
 * many clients).
 */
export function addressKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
