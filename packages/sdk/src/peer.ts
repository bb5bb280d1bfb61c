import { type EventType, formatNegotiated, formatSenderSettings, type SenderSettings } from '@rtcscope/protocol/fields';
import { type NormalizedStats, normalize } from './normalize.js';
import { mediaSections } from './sdp.js';
import { ofType, snapshotFrom, type StatEntry, type StatsSnapshot, str } from './stats.js';

/** Nothing the app chose: no content hint, and every encoding active with no limit set. */
const browserDefaults = (s: SenderSettings): boolean =>
  s.contentHint === '' &&
  s.encodings.every(
    (e) => e.active && e.maxBitrate === null && e.maxFramerate === null && (e.scaleResolutionDownBy ?? 1) === 1 && e.rid === null,
  );

export type EventSink = (type: EventType, detail?: string) => void;

/**
 * Watches one RTCPeerConnection through public APIs only: its state-change events, its tracks and
 * getStats(). Keeps the previous snapshot so each sample covers exactly one interval.
 */
export class PeerWatcher {
  private previous: StatsSnapshot | undefined;
  private closed = false;
  private readonly detachers: (() => void)[] = [];

  constructor(
    readonly pc: RTCPeerConnection,
    readonly key: string,
    private readonly emit: EventSink,
  ) {
    this.listen('connectionstatechange', () => emit('connection-state', pc.connectionState));
    this.listen('iceconnectionstatechange', () => emit('ice-connection-state', pc.iceConnectionState));
    this.listen('icegatheringstatechange', () => emit('ice-gathering-state', pc.iceGatheringState));
    this.listen('signalingstatechange', () => {
      emit('signaling-state', pc.signalingState);
      this.noteNegotiated();
    });
    this.listen('icecandidateerror', (e) => {
      const err = e as RTCPeerConnectionIceErrorEvent;
      emit('ice-candidate-error', `${err.errorCode} ${err.errorText} ${err.url ?? ''}`.trim());
    });
    this.listen('track', (e) => this.watchTrack((e as RTCTrackEvent).track, 'remote'));
    // A connection handed over after it set up went through its changes unseen: where it stands now is said.
    // (A closed one is said by the first sample, once.)
    if (pc.connectionState !== 'new' && pc.connectionState !== 'closed') {
      emit('connection-state', pc.connectionState);
      emit('ice-connection-state', pc.iceConnectionState);
    }
    for (const sender of pc.getSenders()) if (sender.track) this.watchTrack(sender.track, 'local');
    this.noteNegotiated();
  }

  /** The media sections last said. */
  private negotiated = '';

  /**
   * What the connection carries, once an offer and its answer are applied (signaling stable): its media
   * sections, so the server tells a connection with no audio or video (a data channel alone: an analytics
   * service's probe) from the call's, and a receive-only or inactive transceiver from a fault. Said when it changes.
   */
  private noteNegotiated(): void {
    const sdp = this.pc.signalingState === 'stable' ? (this.pc.currentLocalDescription ?? this.pc.localDescription)?.sdp : undefined;
    const detail = sdp ? formatNegotiated(mediaSections(sdp)) : '';
    if (!detail || detail === this.negotiated) return;
    this.negotiated = detail;
    this.emit('media-negotiated', detail);
  }

  /** Local tracks added after attaching are seen here, since senders fire no event. */
  refreshLocalTracks(): void {
    for (const sender of this.pc.getSenders()) if (sender.track) this.watchTrack(sender.track, 'local');
  }

  async sample(): Promise<NormalizedStats | null> {
    if (this.pc.connectionState === 'closed') {
      // close() fires no state change: said once here, so the server knows the page ended it (not the network).
      if (!this.closed) this.emit('connection-state', 'closed');
      this.closed = true;
      return null;
    }
    this.noteSendersOff();
    this.noteSenderSettings();
    const report = await this.pc.getStats();
    const current = snapshotFrom(report as unknown as { forEach(cb: (v: StatEntry) => void): void });
    this.noteDtlsEnded(current);
    const result = normalize(this.previous, current);
    this.previous = current;
    return result;
  }

  detach(): void {
    for (const d of this.detachers.splice(0)) d();
  }

  /** The DTLS state last said (only the ends: closed, failed). */
  private dtls: string | null = null;

  /**
   * The far end hanging up shows first here: Chromium's transport goes `dtlsState: closed` within half a
   * second of the other side's `close()` (its close_notify), while the connection still says connected.
   * Said once as an event, so the server reads what stops arriving as the far side's leaving, not a
   * fault; a DTLS failure is said the same way. Firefox reports no transport: it cannot say.
   */
  private noteDtlsEnded(snapshot: StatsSnapshot): void {
    const ended = ofType(snapshot, 'transport')
      .map((t) => str(t, 'dtlsState'))
      .find((state) => state === 'closed' || state === 'failed');
    if (ended && ended !== this.dtls) this.emit('dtls-state', ended);
    this.dtls = ended ?? null;
  }

  private readonly tracks = new WeakSet<MediaStreamTrack>();
  /** Local tracks said to have ended. */
  private readonly ended = new WeakSet<MediaStreamTrack>();
  /** Senders that have had a track, and the label they were turned off under while off. */
  private readonly senders = new Map<RTCRtpSender, string | null>();

  /**
   * An app's "camera off" or "mute" seldom mutes the track: it disables it or takes it off the sender
   * (`replaceTrack(null)`), which fires no event. Said here as the track's mute and unmute, so the server
   * reads the silence as the person's choice, not a fault. A sender that never had a track is not watched.
   */
  private noteSendersOff(): void {
    for (const t of this.pc.getTransceivers?.() ?? []) {
      const track = t.sender.track;
      // A track the app stopped (`stop()`) fires no event and stays on its sender, which may go on sending a
      // frame a second of nothing (Firefox): said once as its end, so the server knows the camera is gone.
      if (track?.readyState === 'ended' && !this.ended.has(track)) {
        this.ended.add(track);
        this.emit('track-ended', `local ${track.kind} ${track.id}`);
      }
      if (!track && !this.senders.has(t.sender)) continue;
      const offAs = this.senders.get(t.sender) ?? null;
      const off = !track || !track.enabled;
      if (off && offAs === null) {
        const label = `local ${track?.kind ?? t.receiver.track.kind} ${track?.id ?? 'none'}`;
        this.senders.set(t.sender, label);
        this.emit('track-muted', label);
      } else if (!off && offAs !== null) {
        this.emit('track-unmuted', offAs);
        this.senders.set(t.sender, null);
      } else if (!this.senders.has(t.sender)) {
        this.senders.set(t.sender, null);
      }
    }
  }

  /** What each sender's settings were last said as. */
  private readonly settings = new WeakMap<RTCRtpSender, string>();

  /**
   * The app's own limits on what a sender sends (a `maxBitrate` to save bandwidth, a layer switched off,
   * a picture scaled down) change through `setParameters()`, which fires no event: read here each
   * sample and said when they change, so the server tells a rate held by the app from one held by the
   * network or the CPU.
   */
  private noteSenderSettings(): void {
    for (const sender of this.pc.getSenders()) {
      const track = sender.track;
      if (!track || typeof sender.getParameters !== 'function') continue;
      const settings = {
        kind: track.kind as 'audio' | 'video',
        trackId: track.id,
        contentHint: track.contentHint ?? '',
        encodings: (sender.getParameters().encodings ?? []).map((e) => ({
          rid: e.rid ?? null,
          active: e.active !== false,
          maxBitrate: e.maxBitrate ?? null,
          maxFramerate: (e as { maxFramerate?: number }).maxFramerate ?? null,
          scaleResolutionDownBy: e.scaleResolutionDownBy ?? null,
        })),
      };
      const detail = formatSenderSettings(settings);
      const last = this.settings.get(sender);
      if (last === detail) continue;
      this.settings.set(sender, detail);
      // A sender the app left as the browser made it is not said (most are): a change from then on is.
      if (last !== undefined || !browserDefaults(settings)) this.emit('sender-encodings', detail);
    }
  }

  private watchTrack(track: MediaStreamTrack, side: 'local' | 'remote'): void {
    if (this.tracks.has(track)) return;
    this.tracks.add(track);
    const label = `${side} ${track.kind} ${track.id}`;
    this.emit('track-added', label);
    const on = (type: string, event: EventType) => {
      const handler = () => this.emit(event, label);
      track.addEventListener(type, handler);
      this.detachers.push(() => track.removeEventListener(type, handler));
    };
    on('ended', 'track-ended');
    on('mute', 'track-muted');
    on('unmute', 'track-unmuted');
  }

  private listen(type: string, handler: (e: Event) => void): void {
    this.pc.addEventListener(type, handler);
    this.detachers.push(() => this.pc.removeEventListener(type, handler));
  }
}
