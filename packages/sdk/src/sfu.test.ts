import { EventEmitter } from 'node:events';
import type { Room } from 'livekit-client';
import { describe, expect, it } from 'vitest';
import { type LiveKitPublicationLike, type LiveKitRoomLike, nameJanusPublisher, nameJanusSubscription, watchLiveKitRoom } from './sfu.js';

type Listener = Parameters<EventEmitter['on']>[1];
const track = (id: string) => ({ id }) as MediaStreamTrack;

/** A monitor that remembers what it was told. */
function namer() {
  const named = new Map<string, string>();
  return { named, setTrackId: (t: MediaStreamTrack | string, id: string) => named.set(typeof t === 'string' ? t : t.id, id) };
}

/** A connection with transceivers as Chromium lists them: a mid once negotiated, a sender's track where it sends. */
function connection(transceivers: { mid: string | null; send?: string; receive: string }[]): RTCPeerConnection {
  return {
    getTransceivers: () =>
      transceivers.map((t) => ({ mid: t.mid, sender: { track: t.send ? track(t.send) : null }, receiver: { track: track(t.receive) } })),
  } as unknown as RTCPeerConnection;
}

describe('the Janus adapter', () => {
  it("names a publisher's sent tracks by room, feed and mid, and nothing it does not send", () => {
    const m = namer();
    const pc = connection([
      { mid: '0', send: 'mic', receive: 'r0' },
      { mid: '1', send: 'cam', receive: 'r1' },
      { mid: null, send: 'late', receive: 'r2' },
      { mid: '2', receive: 'r3' },
    ]);
    expect(nameJanusPublisher(m, pc, { room: 1234, id: 7 })).toBe(2);
    expect([...m.named]).toEqual([
      ['mic', 'janus:1234:7:0'],
      ['cam', 'janus:1234:7:1'],
    ]);
  });

  it("names a subscription's copies by the feed and mid each is, as Janus's attached event lists them", () => {
    const m = namer();
    const pc = connection([
      { mid: '0', receive: 'copy-a' },
      { mid: '1', receive: 'copy-b' },
      { mid: '2', receive: 'copy-c' },
    ]);
    const streams = [
      { mid: '0', feed_id: 7, feed_mid: '0' },
      { mid: '1', feed_id: 7, feed_mid: '1' },
      // A stream Janus lists before it is in the connection, and one with no feed (inactive).
      { mid: '5', feed_id: 9, feed_mid: '0' },
      { mid: '2' },
    ];
    expect(nameJanusSubscription(m, pc, 1234, streams)).toBe(2);
    expect([...m.named]).toEqual([
      ['copy-a', 'janus:1234:7:0'],
      ['copy-b', 'janus:1234:7:1'],
    ]);
  });
});

describe('the LiveKit adapter', () => {
  /** A room shaped like livekit-client's: participants' publications by SID, and its events. */
  function room() {
    const events = new EventEmitter();
    const local = new Map<string, LiveKitPublicationLike>();
    const remote = new Map<string, { trackPublications: Map<string, LiveKitPublicationLike> }>();
    const r: LiveKitRoomLike = {
      localParticipant: { trackPublications: local },
      remoteParticipants: remote,
      on: (event: string, listener: Listener) => events.on(event, listener),
      off: (event: string, listener: Listener) => events.off(event, listener),
    };
    return { r, events, local, remote };
  }
  const publication = (sid: string, trackId?: string): LiveKitPublicationLike => ({
    trackSid: sid,
    ...(trackId ? { track: { mediaStreamTrack: track(trackId) } } : {}),
  });

  it('names what is published and subscribed already, then each track as it comes, until told to stop', () => {
    const m = namer();
    const { r, events, local, remote } = room();
    local.set('TR_cam', publication('TR_cam', 'cam'));
    remote.set('bob', {
      trackPublications: new Map([
        ['TR_bob', publication('TR_bob', 'bob-copy')],
        ['TR_off', publication('TR_off')],
      ]),
    });
    const stop = watchLiveKitRoom(m, r);
    expect([...m.named]).toEqual([
      ['cam', 'livekit:TR_cam'],
      ['bob-copy', 'livekit:TR_bob'],
    ]);
    events.emit('localTrackPublished', publication('TR_mic', 'mic'));
    events.emit('trackSubscribed', {}, publication('TR_carol', 'carol-copy'));
    expect(m.named.get('mic')).toBe('livekit:TR_mic');
    expect(m.named.get('carol-copy')).toBe('livekit:TR_carol');
    stop();
    events.emit('trackSubscribed', {}, publication('TR_dave', 'dave-copy'));
    expect(m.named.has('dave-copy')).toBe(false);
    expect(events.listenerCount('trackSubscribed') + events.listenerCount('localTrackPublished')).toBe(0);
  });

  it("takes livekit-client's own Room (checked by the type-check)", () => {
    const watch: (room: Room) => () => void = (room) => watchLiveKitRoom(namer(), room);
    expect(typeof watch).toBe('function');
  });
});
