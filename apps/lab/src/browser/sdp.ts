import { networkInterfaces } from 'node:os';
import type { Endpoint } from '../emulator/udp-relay.js';

const CANDIDATE = /^a=candidate:\S+ 1 udp \d+ (\d+\.\d+\.\d+\.\d+) (\d+) typ host/i;

/**
 * The peer's own UDP host candidate, where the relay must send its packets: on 127.0.0.1 where it has
 * one (Chromium), else on one of this machine's own addresses (Firefox gathers none on loopback; Linux
 * delivers between the machine's own addresses over loopback all the same). Null without either.
 */
export function hostCandidate(sdp: string): Endpoint | null {
  const own = new Set(Object.values(networkInterfaces()).flatMap((list) => list?.map((a) => a.address) ?? []));
  const found: Endpoint[] = [];
  for (const line of sdp.split('\r\n')) {
    const m = CANDIDATE.exec(line);
    if (m && own.has(m[1]!)) found.push({ address: m[1]!, port: Number(m[2]) });
  }
  return found.find((c) => c.address === '127.0.0.1') ?? found[0] ?? null;
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

/**
 * The SDP asking the far end to send Opus with DTX (`usedtx=1` on each Opus payload's format line): an
 * offer's asks the answerer, an answer's the offerer, as apps that save a silent speaker's bandwidth do.
 */
export function withOpusDtx(sdp: string): string {
  const opus = new Set([...sdp.matchAll(/^a=rtpmap:(\d+) opus\/48000/gim)].map((m) => m[1]!));
  return sdp
    .split('\r\n')
    .map((line) => {
      const m = /^a=fmtp:(\d+) (.*)$/.exec(line);
      return m && opus.has(m[1]!) && !/(^|;)\s*usedtx=/.test(m[2]!) ? `${line};usedtx=1` : line;
    })
    .join('\r\n');
}
