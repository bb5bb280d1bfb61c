import { describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { hostCandidate, withOnlyCandidate, withOpusDtx } from './sdp.js';

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

  it("asks for Opus DTX on each Opus payload's format line, once, and nothing else", () => {
    const offer = [
      'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9',
      'a=rtpmap:111 opus/48000/2',
      'a=fmtp:111 minptime=10;useinbandfec=1',
      'a=rtpmap:63 red/48000/2',
      'a=fmtp:63 111/111',
      'a=rtpmap:9 G722/8000',
      'm=video 9 UDP/TLS/RTP/SAVPF 96',
      'a=rtpmap:96 VP8/90000',
      'a=fmtp:96 max-fs=12288',
      '',
    ].join('\r\n');
    const out = withOpusDtx(offer).split('\r\n');
    expect(out.filter((l) => l.includes('usedtx'))).toEqual(['a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1']);
    expect(out.length).toBe(offer.split('\r\n').length);
    expect(withOpusDtx(withOpusDtx(offer))).toBe(withOpusDtx(offer));
    // Firefox's Opus line, and one that already says DTX either way, are left as they say.
    expect(withOpusDtx('a=rtpmap:109 opus/48000/2\r\na=fmtp:109 maxplaybackrate=48000;stereo=1')).toContain('stereo=1;usedtx=1');
    expect(withOpusDtx('a=rtpmap:111 opus/48000/2\r\na=fmtp:111 usedtx=0')).toContain('a=fmtp:111 usedtx=0');
  });
});
