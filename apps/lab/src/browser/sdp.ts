import type { Endpoint } from '../emulator/udp-relay.js';

const CANDIDATE = /^a=candidate:\S+ 1 udp \d+ (127\.0\.0\.1) (\d+) typ host/;

/** The peer's own UDP host candidate on loopback, where the relay must send its packets. */
export function loopbackCandidate(sdp: string): Endpoint | null {
  for (const line of sdp.split('\r\n')) {
    const m = CANDIDATE.exec(line);
    if (m) return { address: m[1]!, port: Number(m[2]) };
  }
  return null;
}

/**
 * The SDP with every candidate replaced by one at `at`, so the other peer reaches this one only
 * through the relay. It goes after each media section's connection line (one transport is bundled).
 */
export function withOnlyCandidate(sdp: string, at: Endpoint): string {
  const candidate = `a=candidate:1 1 udp 2122260223 ${at.address} ${at.port} typ host generation 0`;
  const out: string[] = [];
  for (const line of sdp.split('\r\n')) {
    if (line.startsWith('a=candidate:') || line === 'a=end-of-candidates') continue;
    out.push(line);
    if (line.startsWith('c=IN IP4')) out.push(candidate, 'a=end-of-candidates');
  }
  return out.join('\r\n');
}
