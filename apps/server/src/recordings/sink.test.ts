import { describe, expect, it } from 'vitest';
import { Negotiations } from './sink.js';

describe('what a recorded connection negotiated', () => {
  it('reads its SDP where the recording keeps it, saying only what changed', () => {
    const n = new Negotiations();
    const offer = { type: 'offer', sdp: 'v=0\r\nm=audio 9 RTP/SAVPF 111\r\na=sendrecv\r\nm=video 9 RTP/SAVPF 96\r\na=recvonly\r\n' };
    expect(n.description('PC_0', offer)).toBe('audio sendrecv, video recvonly');
    // An SFU renegotiates often with nothing changed: said once.
    expect(n.description('PC_0', offer)).toBeNull();
    // Once a description said it, the API calls add nothing.
    expect(n.call('PC_0', 'createDataChannel', { 0: 'chat' })).toBeNull();
    // webrtc-internals keeps the description as text.
    expect(n.description('1-2', 'type: answer, sdp: v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n')).toBe('application');
  });

  it('reads the calls that gave a connection media or a data channel where the recording keeps no SDP (Jitsi)', () => {
    const n = new Negotiations();
    expect(n.description('PC_0', '')).toBeNull();
    expect(n.call('PC_0', 'addTransceiver', 'audio:1dc8e712 {"direction":"sendrecv"}')).toBe('audio');
    expect(n.call('PC_0', 'addTrack', 'video:22966232 -')).toBe('audio, video');
    expect(n.call('PC_0', 'ontrack', 'video:ab56321d stream:mixedmslabel')).toBeNull();
    expect(n.call('PC_1', 'addStream', '838a0088 audio:4f6049aa video:4e7fa45e')).toBe('audio, video');
    expect(n.call('PC_2', 'createDataChannel', { 0: 'ip-discovery' })).toBe('application');
    // A method that gives nothing, and a value naming no kind.
    expect(n.call('PC_3', 'addIceCandidate', 'candidate:1 1 udp 2122260223 10.0.0.1 50000 typ host')).toBeNull();
    expect(n.call('PC_3', 'addTrack', 'screen-share')).toBeNull();
  });
});
