import { dataOnly, formatNegotiated, parseNegotiated } from '@rtcscope/protocol/fields';
import { describe, expect, it } from 'vitest';
import { mediaSections, sdpOf } from './sdp.js';

const sdp = (...lines: string[]) => ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', 's=-', 't=0 0', ...lines].join('\r\n') + '\r\n';

describe('the media a connection negotiated', () => {
  it('reads each m-line: kind, its direction, a rejected one as inactive, a data channel without one', () => {
    const offer = sdp(
      'a=group:BUNDLE 0 1 2 3',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      'a=mid:0',
      'a=sendrecv',
      'm=video 9 UDP/TLS/RTP/SAVPF 96',
      'a=mid:1',
      'a=recvonly',
      'm=video 0 UDP/TLS/RTP/SAVPF 96',
      'a=mid:2',
      'a=sendonly',
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      'a=mid:3',
    );
    const sections = mediaSections(offer);
    expect(sections).toEqual([
      { kind: 'audio', direction: 'sendrecv' },
      { kind: 'video', direction: 'recvonly' },
      { kind: 'video', direction: 'inactive' },
      { kind: 'application', direction: null },
    ]);
    expect(parseNegotiated(formatNegotiated(sections))).toEqual(sections);
    expect(formatNegotiated(sections)).toBe('audio sendrecv, video recvonly, video inactive, application');
    expect(dataOnly(sections)).toBe(false);
  });

  it("tells a data channel alone (an analytics service's probe) from a call's media, and a session-level direction", () => {
    const probe = mediaSections(sdp('m=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'a=mid:0'));
    expect(dataOnly(probe)).toBe(true);
    expect(mediaSections(sdp('a=recvonly', 'm=audio 9 RTP/SAVPF 111'))).toEqual([{ kind: 'audio', direction: 'recvonly' }]);
    expect(dataOnly([])).toBe(false);
  });

  it('finds the SDP as rtcstats and webrtc-internals keep a description, and refuses a detail that is not one', () => {
    expect(sdpOf({ type: 'offer', sdp: 'v=0\r\nm=audio 9 RTP/SAVPF 111\r\n' })).toBe('v=0\r\nm=audio 9 RTP/SAVPF 111\r\n');
    expect(sdpOf('type: answer, sdp: v=0\r\nm=video 9 RTP/SAVPF 96\r\n')).toBe('v=0\r\nm=video 9 RTP/SAVPF 96\r\n');
    expect(sdpOf({ type: 'offer' })).toBeNull();
    expect(parseNegotiated('audio sendrecv, <script>')).toBeNull();
    expect(parseNegotiated('')).toBeNull();
  });
});
