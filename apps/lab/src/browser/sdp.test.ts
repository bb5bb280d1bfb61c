import { describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { hostCandidate, withOnlyCandidate } from './sdp.js';

const sdp = [
  'v=0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111',
  'c=IN IP4 0.0.0.0',
  'a=candidate:2225602692 1 udp 2122194687 127.0.0.1 60573 typ host generation 0 ufrag f8p0 network-id 3',
  'a=candidate:714448648 1 udp 2122063615 192.0.2.2 50367 typ host generation 0 ufrag f8p0 network-id 1',
  'a=candidate:4201112092 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0',
  'a=end-of-candidates',
  'm=video 9 UDP/TLS/RTP/SAVPF 96',
  'c=IN IP4 0.0.0.0',
  'a=candidate:2225602692 1 udp 2122194687 127.0.0.1 60573 typ host generation 0 ufrag f8p0 network-id 3',
  '',
].join('\r\n');

describe('SDP candidates', () => {
  it('finds the UDP host candidate on loopback, else on an address of this machine (as Firefox offers), never elsewhere', () => {
    expect(hostCandidate(sdp)).toEqual({ address: '127.0.0.1', port: 60573 });
    expect(hostCandidate('v=0\r\n')).toBeNull();
    const own =
      Object.values(networkInterfaces())
        .flatMap((l) => l ?? [])
        .find((a) => a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1';
    const firefox = [
      `a=candidate:0 1 UDP 2122187007 ${own} 56466 typ host`,
      'a=candidate:1 1 UDP 2122252543 fd00::2 52387 typ host',
      `a=candidate:2 1 TCP 2105458943 ${own} 9 typ host tcptype active`,
    ].join('\r\n');
    expect(hostCandidate(firefox)).toEqual({ address: own, port: 56466 });
    expect(hostCandidate('a=candidate:0 1 UDP 2122187007 203.0.113.9 56466 typ host')).toBeNull();
  });

  it('replaces every candidate by the relay, in each media section', () => {
    const out = withOnlyCandidate(sdp, { address: '127.0.0.1', port: 40000 });
    const candidates = out.split('\r\n').filter((l) => l.startsWith('a=candidate:'));
    expect(candidates).toEqual([
      'a=candidate:1 1 udp 2122260223 127.0.0.1 40000 typ host generation 0',
      'a=candidate:1 1 udp 2122260223 127.0.0.1 40000 typ host generation 0',
    ]);
    expect(out).not.toContain('192.0.2.2');
    expect(out.endsWith('\r\n')).toBe(true);
  });
});
