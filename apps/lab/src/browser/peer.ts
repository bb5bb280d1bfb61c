import type { Page } from '@playwright/test';

export interface PeerConfig {
  server: string;
  ingestKey: string;
  callId: string;
  participantId: string;
  metadata?: Record<string, string | number | boolean>;
  video?: { width: number; height: number; fps: number };
  /** Preferred video codec, e.g. VP8, VP9, H264, AV1. */
  codec?: string;
  maxBitrateKbps?: number;
}

/** What a peer's own getStats says, to compare with what rtcscope stored. */
export interface TruthSnapshot {
  wallclock: number;
  out?: { bytesSent: number; timestamp: number; rttTotal: number; rttCount: number };
  in?: { bytesReceived: number; framesDecoded: number; timestamp: number; frameWidth: number; frameHeight: number };
}

type PeerWindow = { peer: { pc: RTCPeerConnection; monitor: { close(): Promise<void> } } };

/**
 * Opens a page on the rtcscope origin (a secure context on loopback), loads the SDK the way a customer
 * would, from `/sdk/rtcscope.js`, and prepares a camera + microphone peer connection monitored by it.
 */
export async function openPeer(page: Page, cfg: PeerConfig): Promise<void> {
  await page.goto(`${cfg.server}/healthz`);
  await page.setContent('<!doctype html><title>peer</title><body></body>');
  await page.addScriptTag({ url: `${cfg.server}/sdk/rtcscope.js` });
  await page.evaluate(async (c) => {
    const v = c.video ?? { width: 640, height: 360, fps: 30 };
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: v.width, height: v.height, frameRate: v.fps }, audio: true });
    const pc = new RTCPeerConnection();
    for (const t of stream.getTracks()) pc.addTrack(t, stream);
    for (const tr of pc.getTransceivers()) {
      if (tr.sender.track?.kind !== 'video') continue;
      if (c.codec) {
        const codecs = RTCRtpReceiver.getCapabilities('video')?.codecs ?? [];
        const wanted = codecs.filter((k) => k.mimeType.toLowerCase() === `video/${c.codec!.toLowerCase()}`);
        if (wanted.length) tr.setCodecPreferences([...wanted, ...codecs.filter((k) => !wanted.includes(k))]);
      }
    }
    pc.ontrack = (e) => {
      if (e.track.kind !== 'video' || !e.streams[0]) return;
      const el = document.createElement('video');
      el.muted = true;
      el.srcObject = e.streams[0];
      document.body.append(el);
      void el.play();
    };
    const w = window as unknown as { RtcScope: typeof import('@rtcscope/sdk'); peer: unknown };
    const monitor = w.RtcScope.createMonitor({
      server: c.server,
      ingestKey: c.ingestKey,
      callId: c.callId,
      participantId: c.participantId,
      ...(c.metadata ? { metadata: c.metadata } : {}),
    });
    monitor.addPeerConnection(pc);
    w.peer = { pc, monitor };
  }, cfg);
}

const gathered = `new Promise((resolve) => {
  const pc = window.peer.pc;
  if (pc.iceGatheringState === 'complete') return resolve();
  pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
})`;

export interface Signaling {
  /** Rewrites the caller's offer before the callee sees it (the lab points candidates at its relay). */
  offer?: (sdp: string) => string;
  answer?: (sdp: string) => string;
}

/** Offer/answer carried by the runner itself: no signaling server needed, the media path is real. */
export async function connectPeers(caller: Page, callee: Page, signaling: Signaling = {}, maxBitrateKbps?: number): Promise<void> {
  const offer = await caller.evaluate(async (g) => {
    const pc = (window as unknown as PeerWindow).peer.pc;
    await pc.setLocalDescription(await pc.createOffer());
    await eval(g);
    return pc.localDescription!.toJSON();
  }, gathered);
  const answer = await callee.evaluate(
    async ({ o, g }) => {
      const pc = (window as unknown as PeerWindow).peer.pc;
      await pc.setRemoteDescription(o);
      await pc.setLocalDescription(await pc.createAnswer());
      await eval(g);
      return pc.localDescription!.toJSON();
    },
    { o: { type: offer.type, sdp: signaling.offer ? signaling.offer(offer.sdp ?? '') : offer.sdp }, g: gathered },
  );
  await caller.evaluate(async (a) => {
    await (window as unknown as PeerWindow).peer.pc.setRemoteDescription(a);
  }, { type: answer.type, sdp: signaling.answer ? signaling.answer(answer.sdp ?? '') : answer.sdp });
  for (const p of [caller, callee]) {
    await p.waitForFunction(() => (window as unknown as PeerWindow).peer.pc.connectionState === 'connected', null, { timeout: 30_000 });
    if (maxBitrateKbps) {
      await p.evaluate(async (kbps) => {
        for (const sender of (window as unknown as PeerWindow).peer.pc.getSenders()) {
          if (sender.track?.kind !== 'video') continue;
          const params = sender.getParameters();
          for (const e of params.encodings) e.maxBitrate = kbps * 1000;
          await sender.setParameters(params);
        }
      }, maxBitrateKbps);
    }
  }
}

/** Closes the peer's monitor (a last sample and goodbye) and its connection. */
export async function hangUp(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const { pc, monitor } = (window as unknown as PeerWindow).peer;
    await monitor.close();
    pc.close();
  });
}

export async function truth(page: Page): Promise<TruthSnapshot> {
  return page.evaluate(async () => {
    const report = await (window as unknown as PeerWindow).peer.pc.getStats();
    const snap: TruthSnapshot = { wallclock: Date.now() };
    report.forEach((s: Record<string, unknown>) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        snap.out = { bytesSent: s.bytesSent as number, timestamp: s.timestamp as number, rttTotal: 0, rttCount: 0 };
      }
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        snap.in = {
          bytesReceived: s.bytesReceived as number,
          framesDecoded: s.framesDecoded as number,
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
  });
}

/** The local address of the candidate pair in use: tests keep media on loopback. */
export async function selectedLocalAddress(page: Page): Promise<string | undefined> {
  return page.evaluate(async () => {
    const report = await (window as unknown as PeerWindow).peer.pc.getStats();
    const stats = [...(report as unknown as Map<string, Record<string, unknown>>).values()];
    const transport = stats.find((s) => s.type === 'transport');
    const pair = stats.find((s) => s.id === transport?.selectedCandidatePairId);
    return stats.find((s) => s.id === pair?.localCandidateId)?.address as string | undefined;
  });
}
