import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Endpoint } from '../emulator/udp-relay.js';
import type { LabWindow, PeerPage } from './peer.js';

/** livekit-client's browser bundle, put in each page of a LiveKit call as an app's own script would be. */
const LIVEKIT_CLIENT = createRequire(import.meta.url).resolve('livekit-client');

let bundle: string | null = null;

/** The participant metadata key a LiveKit call's pages say their own ConnectionQuality under ('excellent', 'good', 'poor', 'lost'). */
export const LIVEKIT_QUALITY = 'livekitQuality';

export interface LiveKitJoin {
  /** LiveKit's signalling URL and the participant's token for the room. */
  url: string;
  token: string;
  /** Where the participant reaches LiveKit's media: its relay over the participant's links, at each of its addresses. */
  relay: Endpoint[];
  codec: string;
  maxBitrateKbps?: number;
  fps: number;
  audioOnly?: boolean;
  /** Joins to watch and listen only: publishes nothing, receives everyone. */
  watches?: boolean;
}

/**
 * The participant joins a LiveKit room as a LiveKit app does: livekit-client's `Room` with simulcast and
 * dynacast on (the SFU pauses layers no one watches), monitored by the SDK's adapter
 * (`monitorLiveKitRoom`, before `connect()`), publishing its camera and microphone (a viewer nothing)
 * and subscribing to everyone. The lab's one intervention: every candidate of LiveKit's the page is given points at the
 * participant's relay, so its media crosses its own emulated links (LiveKit runs ICE-lite and never
 * reaches out around them); TCP candidates are dropped.
 */
export async function joinLiveKit(page: PeerPage, o: LiveKitJoin): Promise<void> {
  bundle ??= readFileSync(LIVEKIT_CLIENT, 'utf8');
  // Evaluated, not added as a script: the page's origin forbids inline scripts (its Content-Security-Policy,
  // which only Chromium's lab context sets aside), and what the driver evaluates is exempt.
  await page.evaluate(bundle);
  // The function below keeps its helpers' names where tsx compiles it (the lab's command line): their
  // helper `__name`, which the page lacks, is given one that does nothing.
  await page.evaluate('globalThis.__name ??= (target) => target');
  await page.evaluate(
    async ({ LIVEKIT_QUALITY, ...o }) => {
      type Candidate = { candidate?: string; sdpMid?: string | null; sdpMLineIndex?: number | null; usernameFragment?: string | null };
      // candidate:<foundation> <component> <protocol> <priority> <address> <port> typ <type> …: one line for
      // each address of the relay's (Chromium's lab pages take only 127.0.0.1's, Firefox only the other).
      const rewrite = (line: string): string[] => {
        const f = line.split(' ');
        if (f.length < 8 || f[2]!.toLowerCase() !== 'udp') return [];
        return o.relay.map((at) => [...f.slice(0, 4), at.address, String(at.port), ...f.slice(6)].join(' '));
      };
      const Base = window.RTCPeerConnection;
      const { lab } = window as unknown as LabWindow;
      const onCandidate = Object.getOwnPropertyDescriptor(Base.prototype, 'onicecandidate')!;
      // The page's own candidates are kept from LiveKit (its end-of-candidates goes on): LiveKit checks a
      // Firefox client's candidates itself (it runs full ICE for Firefox) and would reach it around the relay.
      // It learns each participant's address from the checks that come through the relay instead.
      const ownKept = (handler: (e: RTCPeerConnectionIceEvent) => void) => (e: RTCPeerConnectionIceEvent) => {
        if (!e.candidate?.candidate) handler(e);
      };
      class ThroughRelay extends Base {
        constructor(config?: RTCConfiguration) {
          super(config);
          lab.pcs[`livekit${Object.keys(lab.pcs).length}`] = this;
        }
        override set onicecandidate(handler: ((e: RTCPeerConnectionIceEvent) => void) | null) {
          onCandidate.set!.call(this, handler ? ownKept(handler) : null);
        }
        override get onicecandidate(): ((e: RTCPeerConnectionIceEvent) => void) | null {
          return onCandidate.get!.call(this) as ((e: RTCPeerConnectionIceEvent) => void) | null;
        }
        override async addIceCandidate(c?: Candidate | null): Promise<void> {
          if (!c?.candidate) return super.addIceCandidate(c ?? undefined);
          for (const line of rewrite(c.candidate))
            await super.addIceCandidate({
              candidate: line,
              sdpMid: c.sdpMid ?? null,
              sdpMLineIndex: c.sdpMLineIndex ?? null,
              usernameFragment: c.usernameFragment ?? null,
            });
        }
        override setRemoteDescription(d: RTCSessionDescriptionInit): Promise<void> {
          if (!d.sdp) return super.setRemoteDescription(d);
          const sdp = d.sdp
            .split('\r\n')
            .flatMap((l) => (l.startsWith('a=candidate:') ? rewrite(l.slice(2)).map((c) => `a=${c}`) : [l]))
            .join('\r\n');
          return super.setRemoteDescription({ type: d.type, sdp });
        }
      }
      window.RTCPeerConnection = ThroughRelay;
      type LK = typeof import('livekit-client');
      const w = window as unknown as { LivekitClient: LK; RtcScope: typeof import('@rtcscope/sdk') } & LabWindow;
      const { Room, RoomEvent, Track } = w.LivekitClient;
      const room = new Room({
        dynacast: true,
        adaptiveStream: false,
        publishDefaults: {
          simulcast: true,
          videoCodec: o.codec.toLowerCase() as 'vp8',
          ...(o.maxBitrateKbps ? { videoEncoding: { maxBitrate: o.maxBitrateKbps * 1000, maxFramerate: o.fps } } : {}),
        },
      });
      const monitoring = w.RtcScope.monitorLiveKitRoom(room, lab.monitorOptions!);
      room.on(RoomEvent.TrackSubscribed, (track) => {
        if (track.kind !== Track.Kind.Video) return;
        const el = track.attach();
        el.muted = true;
        document.body.append(el);
      });
      // No ICE servers: LiveKit hands out public STUN servers when given none, and the lab's traffic stays
      // on this machine (its candidates are rewritten to the relay's anyway).
      await room.connect(o.url, o.token, { autoSubscribe: true, rtcConfig: { iceServers: [] } });
      if (!monitoring.monitor) throw new Error('the room connected and the LiveKit adapter made no monitor');
      lab.monitor = monitoring.monitor as unknown as LabWindow['lab']['monitor'];
      lab.livekit = { room, monitoring };
      // LiveKit's own judgement of this participant's connection (livekit-client's ConnectionQuality), in
      // the call's events as it changes: to set beside rtcscope's score for the same seconds.
      const quality = (q: string) => lab.monitor.setMetadata({ [LIVEKIT_QUALITY]: q });
      quality(room.localParticipant.connectionQuality);
      room.on(RoomEvent.ConnectionQualityChanged, (q, participant) => {
        if (participant === room.localParticipant) quality(q);
      });
      for (const t of o.watches ? [] : lab.stream.getTracks()) {
        if (o.audioOnly && t.kind === 'video') continue;
        await room.localParticipant.publishTrack(t, { source: t.kind === 'video' ? Track.Source.Camera : Track.Source.Microphone });
      }
    },
    { ...o, LIVEKIT_QUALITY },
  );
}

/** Waits until the participant receives `tracks` tracks of the others' (a video and an audio of each). */
export async function untilSubscribed(page: PeerPage, tracks: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const { lab } = window as unknown as LabWindow & {
        lab: { livekit?: { room: { remoteParticipants: Map<string, { trackPublications: Map<string, { track?: unknown }> }> } } };
      };
      const room = lab.livekit?.room;
      if (!room) return false;
      let got = 0;
      for (const p of room.remoteParticipants.values()) for (const t of p.trackPublications.values()) if (t.track) got++;
      return got >= n;
    },
    tracks,
    { timeout: 30_000 },
  );
}
