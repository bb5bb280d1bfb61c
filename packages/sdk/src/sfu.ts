import { sfuTrackId, toId } from '@rtcscope/protocol/fields';
import { createMonitor, type Monitor, type MonitorOptions } from './monitor.js';
import { wrapPeerConnections } from './wrap.js';

/**
 * Adapters for SFUs that rewrite a copy's msid: each names both ends of a published track by the SFU's
 * own id for it (`Monitor.setTrackId`), so the server ties every subscriber's copy to its publisher.
 */

/** What the adapters need of a monitor. */
export interface TrackNamer {
  setTrackId(track: MediaStreamTrack | string, id: string): void;
}

/** A stream of a Janus VideoRoom subscription, as its `attached` and `updated` events list them. */
export interface JanusSubscribedStream {
  mid: string;
  feed_id?: number | string;
  feed_mid?: string;
}

/**
 * A Janus VideoRoom publisher, once `joined` (or `configured`): names each track its connection sends by
 * the room, its feed id and the track's mid (Janus keeps a publisher's own mids as its streams'). With
 * janus.js, `pc` is the handle's `webrtcStuff.pc`. Returns how many tracks it named.
 */
export function nameJanusPublisher(
  monitor: TrackNamer,
  pc: RTCPeerConnection,
  feed: { room: number | string; id: number | string },
): number {
  let named = 0;
  for (const t of pc.getTransceivers()) {
    if (t.mid === null || !t.sender.track) continue;
    monitor.setTrackId(t.sender.track, sfuTrackId.janus(feed.room, feed.id, t.mid));
    named++;
  }
  return named;
}

/**
 * A Janus VideoRoom subscription: names each copy it receives by the feed and mid it is, from the
 * `streams` of its `attached` or `updated` event. Call it again after each `updated`. Returns how many
 * copies it named.
 */
export function nameJanusSubscription(
  monitor: TrackNamer,
  pc: RTCPeerConnection,
  room: number | string,
  streams: readonly JanusSubscribedStream[],
): number {
  const byMid = new Map(pc.getTransceivers().map((t) => [t.mid, t]));
  let named = 0;
  for (const s of streams) {
    const t = byMid.get(s.mid);
    if (!t || s.feed_id === undefined || s.feed_mid === undefined) continue;
    monitor.setTrackId(t.receiver.track, sfuTrackId.janus(room, s.feed_id, s.feed_mid));
    named++;
  }
  return named;
}

/** The parts of a livekit-client (2.x) `Room` the adapter reads. */
export interface LiveKitRoomLike {
  localParticipant: { trackPublications: ReadonlyMap<string, LiveKitPublicationLike> };
  remoteParticipants: ReadonlyMap<string, { trackPublications: ReadonlyMap<string, LiveKitPublicationLike> }>;
  on(event: 'localTrackPublished', listener: (publication: LiveKitPublicationLike) => void): unknown;
  on(event: 'trackSubscribed', listener: (track: unknown, publication: LiveKitPublicationLike) => void): unknown;
  off(event: 'localTrackPublished', listener: (publication: LiveKitPublicationLike) => void): unknown;
  off(event: 'trackSubscribed', listener: (track: unknown, publication: LiveKitPublicationLike) => void): unknown;
}

export interface LiveKitPublicationLike {
  trackSid: string;
  track?: { mediaStreamTrack: MediaStreamTrack } | undefined;
}

/**
 * A LiveKit room: names every track this participant publishes and every copy it subscribes to by the
 * track's SID, which LiveKit keeps from publisher to subscriber — those there already, and each one as it
 * comes. Returns the function that stops watching.
 */
export function watchLiveKitRoom(monitor: TrackNamer, room: LiveKitRoomLike): () => void {
  const name = (publication: LiveKitPublicationLike) => {
    if (publication.track) monitor.setTrackId(publication.track.mediaStreamTrack, sfuTrackId.livekit(publication.trackSid));
  };
  const subscribed = (_track: unknown, publication: LiveKitPublicationLike) => name(publication);
  for (const p of room.localParticipant.trackPublications.values()) name(p);
  for (const remote of room.remoteParticipants.values()) for (const p of remote.trackPublications.values()) name(p);
  room.on('localTrackPublished', name);
  room.on('trackSubscribed', subscribed);
  return () => {
    room.off('localTrackPublished', name);
    room.off('trackSubscribed', subscribed);
  };
}

/** The parts of a livekit-client `Room` that `monitorLiveKitRoom` reads besides the tracks. */
export interface LiveKitRoomConnectable extends LiveKitRoomLike {
  name: string;
  localParticipant: LiveKitRoomLike['localParticipant'] & { identity: string };
  on(event: 'localTrackPublished', listener: (publication: LiveKitPublicationLike) => void): unknown;
  on(event: 'trackSubscribed', listener: (track: unknown, publication: LiveKitPublicationLike) => void): unknown;
  on(event: 'connected' | 'disconnected', listener: () => void): unknown;
  off(event: 'localTrackPublished', listener: (publication: LiveKitPublicationLike) => void): unknown;
  off(event: 'trackSubscribed', listener: (track: unknown, publication: LiveKitPublicationLike) => void): unknown;
  off(event: 'connected' | 'disconnected', listener: () => void): unknown;
}

export interface LiveKitMonitor {
  /** The participant's monitor, once the room has connected. */
  readonly monitor: Monitor | null;
  /** Stops monitoring: the last samples go, connections made from now on are not caught. */
  close(): Promise<void>;
}

/**
 * Monitors this participant of a LiveKit room with one call, made before `room.connect()`: the room's name
 * becomes the call id and the participant's identity its id (characters an id may not hold become '-'),
 * the connections livekit-client makes are caught as they are made (it hands out none), and every track
 * is named by its SID (`watchLiveKitRoom`). It stops when the room disconnects.
 */
export function monitorLiveKitRoom(
  room: LiveKitRoomConnectable,
  options: Omit<MonitorOptions, 'callId' | 'participantId'>,
): LiveKitMonitor {
  // Connections livekit-client makes while connecting, before the room's name and identity are known:
  // their set-up is timed from when they were made.
  const waiting: { pc: RTCPeerConnection; createdAt: number }[] = [];
  let monitor: Monitor | null = null;
  let unwatch = () => {};
  const unwrap = wrapPeerConnections({
    addPeerConnection: (pc) => (monitor ? monitor.addPeerConnection(pc) : void waiting.push({ pc, createdAt: Date.now() })),
  });
  const connected = () => {
    if (monitor) return;
    monitor = createMonitor({ ...options, callId: toId(room.name), participantId: toId(room.localParticipant.identity) });
    for (const { pc, createdAt } of waiting.splice(0)) monitor.addPeerConnection(pc, { createdAt });
    unwatch = watchLiveKitRoom(monitor, room);
  };
  // Once: the room's 'disconnected' closes it too, and the app may have closed it first.
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      room.off('connected', connected);
      room.off('disconnected', disconnected);
      unwrap();
      unwatch();
      await monitor?.close();
    })());
  const disconnected = () => void close();
  room.on('connected', connected);
  room.on('disconnected', disconnected);
  return {
    get monitor() {
      return monitor;
    },
    close,
  };
}
