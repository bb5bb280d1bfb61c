import type { Page } from '@playwright/test';
import { type LabSetMark, labSetMetadata } from '@rtcscope/experiments';
import type { ParticipantAction, Scenario } from '@rtcscope/scenario';
import type { JanusSubscribedStream } from '@rtcscope/sdk';

export interface PeerConfig {
  server: string;
  ingestKey: string;
  callId: string;
  participantId: string;
  metadata?: Record<string, string | number | boolean>;
  /** `source: 'canvas'` or `'screen'` draws the picture in the page instead of taking the browser's fake camera (see the scenario's `video`). */
  video?: Scenario['participants']['video'];
  audioOnly?: boolean;
  /** Preferred video codec, e.g. VP8, VP9, H264, AV1. */
  codec?: string;
  /**
   * The participant's monitor is the SDK's LiveKit adapter's (`monitorLiveKitRoom`), made when its room
   * connects (`joinLiveKit`), as in a LiveKit app; otherwise the page makes one at once.
   */
  livekit?: boolean;
  /**
   * The page's origin, a secure context on loopback: the rtcscope server's unless given (a LiveKit call's
   * pages stand on LiveKit's, as an app's own page would, whose policy lets them reach LiveKit).
   */
  origin?: string;
}

/**
 * What the lab asks of a browser page: a Playwright page has it; another driver's page (the end-to-end
 * tests' Firefox, through puppeteer) is adapted to it.
 */
export type PeerPage = Pick<Page, 'goto' | 'setContent' | 'addScriptTag' | 'evaluate' | 'waitForFunction'>;

/** What a peer's own getStats says, to compare with what rtcscope stored. */
export interface TruthSnapshot {
  wallclock: number;
  out?: { bytesSent: number; timestamp: number; rttTotal: number; rttCount: number };
  in?: { bytesReceived: number; framesDecoded: number; packetsLost: number; timestamp: number; frameWidth: number; frameHeight: number };
}

/** The participant in a page: its media, its monitor and its peer connections by label. */
export type LabWindow = {
  lab: {
    stream: MediaStream;
    codec?: string;
    monitor: {
      addPeerConnection(pc: RTCPeerConnection, o: { label: string }): void;
      setMetadata(m: Record<string, string | number | boolean>): void;
      setTrackId(track: MediaStreamTrack, id: string): void;
      close(): Promise<void>;
      readonly status: SampleTally;
    };
    pcs: Record<string, RTCPeerConnection>;
    /** What the LiveKit adapter's monitor is made with, until the room connects. */
    monitorOptions?: { server: string; ingestKey: string; metadata?: Record<string, string | number | boolean> };
    /** The participant's LiveKit room (livekit-client's `Room`) and the adapter monitoring it. */
    livekit?: {
      room: {
        disconnect(): Promise<void>;
        simulateScenario(scenario: 'signal-reconnect' | 'full-reconnect'): Promise<void>;
        localParticipant: { setMicrophoneEnabled(on: boolean): Promise<unknown>; setCameraEnabled(on: boolean): Promise<unknown> };
      };
      monitoring: { close(): Promise<void> };
    };
  };
};

/**
 * Opens a page on the rtcscope origin or the one given (a secure context on loopback), loads the SDK the way a customer
 * would, from `/sdk/rtcscope.js`, takes camera and microphone and starts the participant's monitor.
 * Its peer connections come with `connectPeers`.
 */
export async function openPeer(page: PeerPage, cfg: PeerConfig): Promise<void> {
  await page.goto(cfg.origin ?? `${cfg.server}/healthz`);
  await page.setContent('<!doctype html><title>peer</title><body></body>');
  await page.addScriptTag({ url: `${cfg.server}/sdk/rtcscope.js` });
  await page.evaluate(async (c) => {
    const v = c.video ?? { width: 640, height: 360, fps: 30 };
    let stream: MediaStream;
    if (c.audioOnly) {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } else if (v.source === 'canvas' || v.source === 'screen') {
      // Drawn in the page, the same in every browser. canvas: blocks of colour moving over a gradient
      // each frame, the detail and motion of a camera, so the encoder spends what the link allows.
      // screen: a page of text, still but for a blinking caret for 30 s, then scrolled for 30 s, in turn;
      // a still canvas yields no frames, as a screen capture of a still page yields few.
      const canvas = document.createElement('canvas');
      canvas.width = v.width;
      canvas.height = v.height;
      const g = canvas.getContext('2d')!;
      const started = performance.now();
      let tick = 0;
      let frame = 0;
      let scrolled = 0;
      setInterval(() => {
        tick++;
        const s = (performance.now() - started) / 1000;
        // A varying rate: every other 5 s, one tick in three is drawn.
        if (v.fpsVaries && Math.floor(s / 5) % 2 === 1 && tick % 3 !== 0) return;
        frame++;
        if (v.source === 'canvas') {
          const gradient = g.createLinearGradient(0, 0, v.width, v.height);
          gradient.addColorStop(0, `hsl(${frame % 360} 70% 50%)`);
          gradient.addColorStop(1, `hsl(${(frame * 3 + 180) % 360} 70% 30%)`);
          g.fillStyle = gradient;
          g.fillRect(0, 0, v.width, v.height);
          for (let k = 0; k < 120; k++) {
            g.fillStyle = `hsl(${(k * 47 + frame * 7) % 360} 80% ${30 + ((k * 13) % 50)}%)`;
            const size = 8 + ((k * 7) % 40);
            g.fillRect(Math.random() * (v.width - size), Math.random() * (v.height - size), size, size);
          }
          g.fillStyle = '#fff';
          g.font = `${Math.round(v.height / 8)}px sans-serif`;
          g.fillText(String(frame), v.width / 20, v.height / 5);
          return;
        }
        const scrolling = Math.floor(s / 30) % 2 === 1;
        const caretOn = Math.floor(s * 2) % 2 === 0;
        if (!scrolling && frame > 1 && tick % Math.max(1, Math.round(v.fps / 2)) !== 0) return;
        if (scrolling) scrolled += Math.max(1, Math.round(v.height / 120));
        const line = Math.max(12, Math.round(v.height / 24));
        g.fillStyle = '#fff';
        g.fillRect(0, 0, v.width, v.height);
        g.font = `${Math.round(line * 0.7)}px sans-serif`;
        const first = Math.floor(scrolled / line);
        for (let row = first; row < first + v.height / line + 1; row++) {
          const y = row * line - scrolled + line;
          g.fillStyle = row % 12 === 0 ? '#123' : '#333';
          g.fillText(
            `${row % 12 === 0 ? '§' : ''}${row}. The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs`.slice(
              0,
              20 + ((row * 37) % 70),
            ),
            line,
            y,
          );
        }
        if (caretOn) g.fillRect(v.width / 2, line * 3, 2, line);
      }, 1000 / v.fps);
      const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
      const [track] = canvas.captureStream(v.fps).getVideoTracks();
      if (v.source === 'screen') track!.contentHint = 'detail';
      stream = new MediaStream([track!, ...microphone.getAudioTracks()]);
    } else {
      stream = await navigator.mediaDevices.getUserMedia({ video: { width: v.width, height: v.height, frameRate: v.fps }, audio: true });
    }
    const w = window as unknown as { RtcScope: typeof import('@rtcscope/sdk') } & LabWindow;
    const monitorOptions = { server: c.server, ingestKey: c.ingestKey, ...(c.metadata ? { metadata: c.metadata } : {}) };
    if (c.livekit) {
      // Until its room connects, the adapter's monitor is not there: nothing may be marked before.
      const monitor = null as unknown as LabWindow['lab']['monitor'];
      w.lab = { stream, monitor, monitorOptions, pcs: {}, ...(c.codec ? { codec: c.codec } : {}) };
      return;
    }
    const monitor = w.RtcScope.createMonitor({ ...monitorOptions, callId: c.callId, participantId: c.participantId });
    w.lab = { stream, monitor, pcs: {}, ...(c.codec ? { codec: c.codec } : {}) };
  }, cfg);
}

/**
 * A new peer connection in the page, monitored under `label`: sending the participant's media, or (`send:
 * false`) only receiving, as a subscriber's connection to an SFU does; `receiveOnly` offers to receive
 * each kind of the participant's media on a transceiver of its own that sends nothing (a viewer's offer).
 */
export async function addConnection(
  page: PeerPage,
  label: string,
  o: { rtc?: RTCConfiguration; send?: boolean; receiveOnly?: boolean } = {},
): Promise<void> {
  await page.evaluate(
    ({ l, rtc, send, receiveOnly }) => {
      const { lab } = window as unknown as LabWindow;
      const pc = new RTCPeerConnection(rtc);
      if (send) for (const t of lab.stream.getTracks()) pc.addTrack(t, lab.stream);
      if (receiveOnly) for (const t of lab.stream.getTracks()) pc.addTransceiver(t.kind, { direction: 'recvonly' });
      if (send && lab.codec) {
        const codecs = RTCRtpReceiver.getCapabilities('video')?.codecs ?? [];
        const wanted = codecs.filter((k) => k.mimeType.toLowerCase() === `video/${lab.codec!.toLowerCase()}`);
        for (const tr of pc.getTransceivers()) {
          if (tr.sender.track?.kind === 'video' && wanted.length)
            tr.setCodecPreferences([...wanted, ...codecs.filter((k) => !wanted.includes(k))]);
        }
      }
      pc.ontrack = (e) => {
        if (e.track.kind !== 'video') return;
        const el = document.createElement('video');
        el.muted = true;
        el.srcObject = e.streams[0] ?? new MediaStream([e.track]);
        document.body.append(el);
        void el.play();
      };
      lab.monitor.addPeerConnection(pc, { label: l });
      lab.pcs[l] = pc;
    },
    { l: label, rtc: o.rtc ?? {}, send: o.send ?? true, receiveOnly: o.receiveOnly ?? false },
  );
}

// The functions below run in the page: they name no function of their own (a runner that keeps
// function names, as tsx does, would call a helper the page does not have).

/** The connection's offer, with every candidate gathered (the lab signals without trickling). */
export function createOffer(page: PeerPage, label: string): Promise<string> {
  return page.evaluate(async (l) => {
    const pc = (window as unknown as LabWindow).lab.pcs[l]!;
    await pc.setLocalDescription(await pc.createOffer());
    if (pc.iceGatheringState !== 'complete')
      await new Promise((done) => pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && done(null)));
    return pc.localDescription!.sdp;
  }, label);
}

/** Takes the far side's offer and returns this side's answer, every candidate gathered. */
export function answerOffer(page: PeerPage, label: string, sdp: string): Promise<string> {
  return page.evaluate(
    async ({ l, sdp }) => {
      const pc = (window as unknown as LabWindow).lab.pcs[l]!;
      await pc.setRemoteDescription({ type: 'offer', sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      if (pc.iceGatheringState !== 'complete')
        await new Promise((done) =>
          pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && done(null)),
        );
      return pc.localDescription!.sdp;
    },
    { l: label, sdp },
  );
}

export async function acceptAnswer(page: PeerPage, label: string, sdp: string): Promise<void> {
  await page.evaluate(
    async ({ l, sdp }) => {
      await (window as unknown as LabWindow).lab.pcs[l]!.setRemoteDescription({ type: 'answer', sdp });
    },
    { l: label, sdp },
  );
}

export async function untilConnected(page: PeerPage, label: string): Promise<void> {
  await page.waitForFunction((l) => (window as unknown as LabWindow).lab.pcs[l]!.connectionState === 'connected', label, {
    timeout: 30_000,
  });
}

/** Caps what the connection's video senders send (each encoding), as an app's bitrate setting does. */
export async function capVideo(page: PeerPage, label: string, kbps: number): Promise<void> {
  await page.evaluate(
    async ({ l, kbps }) => {
      for (const sender of (window as unknown as LabWindow).lab.pcs[l]!.getSenders()) {
        if (sender.track?.kind !== 'video') continue;
        const params = sender.getParameters();
        for (const e of params.encodings) e.maxBitrate = kbps * 1000;
        await sender.setParameters(params);
      }
    },
    { l: label, kbps },
  );
}

/**
 * Names the connection's tracks as an app on Janus does with the SDK's adapters (see its
 * `setTrackId`): a publisher's by its feed, a subscription's by the feeds its streams are. Returns how
 * many it named.
 */
export function nameJanusTracks(
  page: PeerPage,
  label: string,
  janus: { room: number; feed: number } | { room: number; streams: JanusSubscribedStream[] },
): Promise<number> {
  return page.evaluate(
    ({ l, janus }) => {
      const w = window as unknown as { RtcScope: typeof import('@rtcscope/sdk') } & LabWindow;
      const pc = w.lab.pcs[l]!;
      return 'feed' in janus
        ? w.RtcScope.nameJanusPublisher(w.lab.monitor, pc, { room: janus.room, id: janus.feed })
        : w.RtcScope.nameJanusSubscription(w.lab.monitor, pc, janus.room, janus.streams);
    },
    { l: label, janus },
  );
}

export interface ConnectOptions {
  /** The connection's name on both sides; default `pc1`. */
  label?: string;
  /** Rewrites the caller's offer before the callee sees it (the lab points candidates at its relay). */
  offer?: (sdp: string) => string;
  answer?: (sdp: string) => string;
  maxBitrateKbps?: number;
  /** The peer connections' configuration, e.g. a TURN server and `iceTransportPolicy: 'relay'` for a relayed path. */
  rtc?: RTCConfiguration;
  /** Which side only watches: it sends nothing, offering (the caller) or answering (the callee) to receive only. */
  viewer?: 'caller' | 'callee';
}

/** Connects two participants with a new peer connection each; the runner carries offer and answer. */
export async function connectPeers(caller: PeerPage, callee: PeerPage, o: ConnectOptions = {}): Promise<void> {
  const label = o.label ?? 'pc1';
  const rtc = o.rtc ?? {};
  await Promise.all([
    addConnection(caller, label, o.viewer === 'caller' ? { rtc, send: false, receiveOnly: true } : { rtc }),
    addConnection(callee, label, { rtc, send: o.viewer !== 'callee' }),
  ]);
  const offer = await createOffer(caller, label);
  const answer = await answerOffer(callee, label, o.offer ? o.offer(offer) : offer);
  await acceptAnswer(caller, label, o.answer ? o.answer(answer) : answer);
  for (const p of [caller, callee]) {
    await untilConnected(p, label);
    if (o.maxBitrateKbps) await capVideo(p, label, o.maxBitrateKbps);
  }
}

/**
 * Records what the lab set on a link in the call's own event stream (as participant metadata), so the
 * dashboard can draw "set" next to "measured" for a lab call like for no other.
 */
export async function markConditions(page: PeerPage, mark: LabSetMark): Promise<void> {
  await page.evaluate((metadata) => (window as unknown as LabWindow).lab.monitor.setMetadata(metadata), labSetMetadata(mark));
}

/**
 * Does what a person does in an app (a scenario's `actions`): mutes by disabling the microphone's track
 * (its sender goes on sending silence), turns the camera off by taking the track off every connection's
 * video sender (`replaceTrack(null)`: nothing is sent), and back. In a LiveKit room, through
 * livekit-client's own mute of the track (`setMicrophoneEnabled`, `setCameraEnabled`), as LiveKit apps do;
 * its signalling connection lost as livekit-client's own tests lose it (`simulateScenario`): a resume
 * ('reconnect': the same connections, ICE restarted) or a full reconnect ('rejoin': the room joined again
 * on new connections, every track published again).
 */
export async function act(page: PeerPage, what: ParticipantAction['do']): Promise<void> {
  await page.evaluate(async (w) => {
    const { lab } = window as unknown as LabWindow;
    if (lab.livekit) {
      // As a LiveKit app does: the track is muted, and LiveKit stops forwarding it.
      if (w === 'reconnect' || w === 'rejoin')
        return lab.livekit.room.simulateScenario(w === 'reconnect' ? 'signal-reconnect' : 'full-reconnect');
      const me = lab.livekit.room.localParticipant;
      await (w === 'mute' || w === 'unmute' ? me.setMicrophoneEnabled(w === 'unmute') : me.setCameraEnabled(w === 'camera-on'));
      return;
    }
    if (w === 'reconnect' || w === 'rejoin') throw new Error(`"${w}" is LiveKit's reconnection: this participant is not in a LiveKit room`);
    if (w === 'mute' || w === 'unmute') {
      for (const t of lab.stream.getAudioTracks()) t.enabled = w === 'unmute';
      return;
    }
    const camera = lab.stream.getVideoTracks()[0] ?? null;
    for (const pc of Object.values(lab.pcs))
      for (const t of pc.getTransceivers()) {
        const sends = t.currentDirection === 'sendonly' || t.currentDirection === 'sendrecv';
        if (sends && t.receiver.track.kind === 'video') await t.sender.replaceTrack(w === 'camera-on' ? camera : null);
      }
  }, what);
}

/** What a participant's monitor said of its sample rows once closed (the SDK's `status`). */
export interface SampleTally {
  storedRows: number;
  droppedRows: number;
  pendingRows: number;
}

/** Closes the participant's monitor (a last sample and goodbye) and its connections; says what it stored. */
export async function hangUp(page: PeerPage): Promise<SampleTally> {
  return page.evaluate(async () => {
    const { lab } = window as unknown as LabWindow;
    if (lab.livekit) {
      await lab.livekit.monitoring.close();
      await lab.livekit.room.disconnect();
    } else {
      await lab.monitor.close();
      for (const pc of Object.values(lab.pcs)) pc.close();
    }
    const { storedRows, droppedRows, pendingRows } = lab.monitor.status;
    return { storedRows, droppedRows, pendingRows };
  });
}

/**
 * One connection's getStats, as the browser has it: `label`'s, by default a pair's `pc1` or, in a LiveKit
 * room, the newest connection (a full reconnect replaces it).
 */
export async function truth(page: PeerPage, label?: string): Promise<TruthSnapshot> {
  return page.evaluate(async (l) => {
    const { pcs } = (window as unknown as LabWindow).lab;
    const pc = l === undefined ? (pcs['pc1'] ?? Object.values(pcs).at(-1)) : pcs[l];
    if (!pc) throw new Error(`no connection ${l ?? 'pc1'} in this page (it has ${Object.keys(pcs).join(', ') || 'none'})`);
    const report = await pc.getStats();
    const snap: TruthSnapshot = { wallclock: Date.now() };
    report.forEach((s: Record<string, unknown>) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        snap.out = { bytesSent: s.bytesSent as number, timestamp: s.timestamp as number, rttTotal: 0, rttCount: 0 };
      }
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        snap.in = {
          bytesReceived: s.bytesReceived as number,
          framesDecoded: s.framesDecoded as number,
          packetsLost: s.packetsLost as number,
          timestamp: s.timestamp as number,
          frameWidth: s.frameWidth as number,
          frameHeight: s.frameHeight as number,
        };
      }
    });
    report.forEach((s: Record<string, unknown>) => {
      if (s.type === 'remote-inbound-rtp' && s.kind === 'video' && snap.out) {
        snap.out.rttTotal = (s.totalRoundTripTime as number) ?? 0;
        snap.out.rttCount = (s.roundTripTimeMeasurements as number) ?? 0;
      }
    });
    return snap;
  }, label);
}

/**
 * The address of this side's candidate in the pair the connection uses. Only this side's: Chromium
 * hides the address of a remote candidate learned from connectivity checks (peer-reflexive), so the
 * far end is read as the other peer's own.
 */
export async function selectedLocalAddress(page: PeerPage, label = 'pc1'): Promise<string | undefined> {
  return page.evaluate(async (l) => {
    const report = await (window as unknown as LabWindow).lab.pcs[l]!.getStats();
    const stats = [...(report as unknown as Map<string, Record<string, unknown>>).values()];
    const transport = stats.find((s) => s.type === 'transport');
    const pair = stats.find((s) => s.id === transport?.selectedCandidatePairId);
    return stats.find((s) => s.id === pair?.localCandidateId)?.address as string | undefined;
  }, label);
}
