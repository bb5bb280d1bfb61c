import { describe, expect, it } from 'vitest';
import { PeerWatcher } from './peer.js';

/** The parts of an RTCPeerConnection the watcher uses, closed by its page. */
const closedPeer = () =>
  ({
    connectionState: 'closed',
    addEventListener() {},
    removeEventListener() {},
    getSenders: () => [],
    getStats: () => Promise.reject(new Error('closed')),
  }) as unknown as RTCPeerConnection;

describe('PeerWatcher', () => {
  it('says once that its page closed the connection, which fires no state change, and samples it no more', async () => {
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(closedPeer(), 'pc1', (type, detail) => events.push([type, detail]));
    expect(await watcher.sample()).toBeNull();
    expect(await watcher.sample()).toBeNull();
    expect(events).toEqual([['connection-state', 'closed']]);
  });

  it('says where a connection handed over after it set up stands (its changes went by unseen), and nothing of a new one', () => {
    const peer = (connectionState: string) =>
      ({ connectionState, iceConnectionState: 'connected', addEventListener() {}, getSenders: () => [] }) as unknown as RTCPeerConnection;
    const events: [string, string | undefined][] = [];
    new PeerWatcher(peer('new'), 'pc1', (type, detail) => events.push([type, detail]));
    expect(events).toEqual([]);
    new PeerWatcher(peer('connected'), 'pc2', (type, detail) => events.push([type, detail]));
    expect(events).toEqual([
      ['connection-state', 'connected'],
      ['ice-connection-state', 'connected'],
    ]);
  });

  it('says what the connection negotiated once signaling is stable, again only when it changes', () => {
    const listeners = new Map<string, () => void>();
    const pc = {
      connectionState: 'new',
      signalingState: 'have-local-offer',
      currentLocalDescription: null as { sdp: string } | null,
      localDescription: { sdp: 'v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n' },
      addEventListener: (type: string, f: () => void) => listeners.set(type, f),
      getSenders: () => [],
    };
    const events: [string, string | undefined][] = [];
    new PeerWatcher(pc as unknown as RTCPeerConnection, 'pc1', (type, detail) => events.push([type, detail]));
    expect(events).toEqual([]);
    Object.assign(pc, { signalingState: 'stable', currentLocalDescription: pc.localDescription });
    listeners.get('signalingstatechange')!();
    listeners.get('signalingstatechange')!();
    pc.currentLocalDescription = {
      sdp: 'v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nm=audio 9 RTP/SAVPF 111\r\na=recvonly\r\n',
    };
    listeners.get('signalingstatechange')!();
    expect(events.filter(([type]) => type === 'media-negotiated')).toEqual([
      ['media-negotiated', 'application'],
      ['media-negotiated', 'application, audio recvonly'],
    ]);
  });

  it('says once that a local track its app stopped has ended (stop() fires no event)', async () => {
    const camera = { kind: 'video', id: 'cam1', enabled: true, readyState: 'live' } as MediaStreamTrack;
    const pc = {
      connectionState: 'connected',
      addEventListener() {},
      removeEventListener() {},
      getSenders: () => [],
      getTransceivers: () => [{ sender: { track: camera }, receiver: { track: { kind: 'video' } } }],
      getStats: () => Promise.resolve(new Map()),
    } as unknown as RTCPeerConnection;
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(pc, 'pc1', (type, detail) => events.push([type, detail]));
    events.splice(0);
    await watcher.sample();
    Object.assign(camera, { readyState: 'ended' });
    await watcher.sample();
    await watcher.sample();
    expect(events).toEqual([['track-ended', 'local video cam1']]);
  });

  it("says an app's camera off (a disabled track, or none on the sender) as mute and unmute, and nothing of a sender that never had a track", async () => {
    const camera = { kind: 'video', id: 'cam1', enabled: true } as MediaStreamTrack;
    const sending = { sender: { track: camera as MediaStreamTrack | null }, receiver: { track: { kind: 'video' } } };
    const receiving = { sender: { track: null }, receiver: { track: { kind: 'audio' } } };
    const pc = {
      connectionState: 'connected',
      addEventListener() {},
      removeEventListener() {},
      getSenders: () => [],
      getTransceivers: () => [sending, receiving],
      getStats: () => Promise.resolve(new Map()),
    } as unknown as RTCPeerConnection;
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(pc, 'pc1', (type, detail) => events.push([type, detail]));
    // Where a connected connection stands when handed over is said at once (another test's): not this one's.
    events.splice(0);
    await watcher.sample();
    expect(events).toEqual([]);
    camera.enabled = false;
    await watcher.sample();
    await watcher.sample();
    camera.enabled = true;
    await watcher.sample();
    sending.sender.track = null;
    await watcher.sample();
    sending.sender.track = camera;
    await watcher.sample();
    expect(events).toEqual([
      ['track-muted', 'local video cam1'],
      ['track-unmuted', 'local video cam1'],
      ['track-muted', 'local video none'],
      ['track-unmuted', 'local video none'],
    ]);
  });

  it("says once that the far end hung up (the transport's DTLS closed while the connection still says connected)", async () => {
    let dtlsState = 'connected';
    const pc = {
      connectionState: 'connected',
      addEventListener() {},
      removeEventListener() {},
      getSenders: () => [],
      getTransceivers: () => [],
      getStats: () => Promise.resolve(new Map([['T01', { id: 'T01', type: 'transport', timestamp: 0, dtlsState }]])),
    } as unknown as RTCPeerConnection;
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(pc, 'pc1', (type, detail) => events.push([type, detail]));
    // Where a connected connection stands when handed over is said at once (another test's): not this one's.
    events.splice(0);
    await watcher.sample();
    dtlsState = 'closed';
    await watcher.sample();
    await watcher.sample();
    expect(events).toEqual([['dtls-state', 'closed']]);
  });

  it("says a sender's settings when the app set them and each time they change, not a sender left as the browser made it", async () => {
    const camera = {
      kind: 'video',
      id: 'cam1',
      enabled: true,
      contentHint: '',
      addEventListener() {},
      removeEventListener() {},
    } as unknown as MediaStreamTrack;
    let encodings: RTCRtpEncodingParameters[] = [{ active: true }];
    const sender = { track: camera, getParameters: () => ({ encodings }) };
    const pc = {
      connectionState: 'connected',
      addEventListener() {},
      removeEventListener() {},
      getSenders: () => [sender],
      getTransceivers: () => [],
      getStats: () => Promise.resolve(new Map()),
    } as unknown as RTCPeerConnection;
    const events: [string, string | undefined][] = [];
    const watcher = new PeerWatcher(pc, 'pc1', (type, detail) => type === 'sender-encodings' && events.push([type, detail]));
    await watcher.sample();
    expect(events).toEqual([]);
    encodings = [{ active: true, maxBitrate: 50_000 }];
    await watcher.sample();
    await watcher.sample();
    encodings = [{ active: true }];
    await watcher.sample();
    expect(events).toEqual([
      ['sender-encodings', 'local video cam1 hint=; rid=- active=1 maxBitrate=50000 maxFramerate=- scale=-'],
      ['sender-encodings', 'local video cam1 hint=; rid=- active=1 maxBitrate=- maxFramerate=- scale=-'],
    ]);
  });
});
