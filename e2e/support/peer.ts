import type { Page } from '@playwright/test';

export interface PeerConfig {
  server: string;
  ingestKey: string;
  callId: string;
  participantId: string;
}

/** What a peer's own getStats says, to compare with what rtcscope stored. */
export interface TruthSnapshot {
  wallclock: number;
  out?: { bytesSent: number; timestamp: number; rttTotal: number; rttCount: number };
  in?: { bytesReceived: number; framesDecoded: number; timestamp: number; frameWidth: number; frameHeight: number };
}

/**
 * Opens a page on the rtcscope origin (a secure context on loopback), loads the SDK the way a customer
 * would, from `/sdk/rtcscope.js`, and prepares a camera + microphone peer connection monitored by it.
 */
export async function openPeer(page: Page, cfg: PeerConfig): Promise<void> {
  await page.goto(`${cfg.server}/healthz`);
  await page.setContent('<!doctype html><title>peer</title><body></body>');
  await page.addScriptTag({ url: `${cfg.server}/sdk/rtcscope.js` });
  await page.evaluate(async (c) => {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360, frameRate: 30 }, audio: true });
    const pc = new RTCPeerConnection();
    for (const t of stream.getTracks()) pc.addTrack(t, stream);
    pc.ontrack = (e) => {
      if (e.track.kind !== 'video' || !e.streams[0]) return;
      const v = document.createElement('video');
      v.muted = true;
      v.srcObject = e.streams[0];
      document.body.append(v);
      void v.play();
    };
    const w = window as unknown as { RtcScope: typeof import('@rtcscope/sdk'); peer: unknown };
    const monitor = w.RtcScope.createMonitor({ server: c.server, ingestKey: c.ingestKey, callId: c.callId, participantId: c.participantId });
    monitor.addPeerConnection(pc);
    w.peer = { pc, monitor };
  }, cfg);
}

const gathered = `new Promise((resolve) => {
  const pc = window.peer.pc;
  if (pc.iceGatheringState === 'complete') return resolve();
  pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
})`;

/** Offer/answer relayed by the test itself: no signaling server needed, the media path is real. */
export async function connectPeers(caller: Page, callee: Page): Promise<void> {
  const offer = await caller.evaluate(async (g) => {
    const pc = (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc;
    await pc.setLocalDescription(await pc.createOffer());
    await eval(g);
    return pc.localDescription!.toJSON();
  }, gathered);
  const answer = await callee.evaluate(
    async ({ o, g }) => {
      const pc = (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc;
      await pc.setRemoteDescription(o);
      await pc.setLocalDescription(await pc.createAnswer());
      await eval(g);
      return pc.localDescription!.toJSON();
    },
    { o: offer, g: gathered },
  );
  await caller.evaluate(async (a) => {
    await (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc.setRemoteDescription(a);
  }, answer);
  for (const p of [caller, callee]) {
    await p.waitForFunction(() => (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc.connectionState === 'connected', null, {
      timeout: 20_000,
    });
  }
}

export async function truth(page: Page): Promise<TruthSnapshot> {
  return page.evaluate(async () => {
    const report = await (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc.getStats();
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
    const report = await (window as unknown as { peer: { pc: RTCPeerConnection } }).peer.pc.getStats();
    const stats = [...(report as unknown as Map<string, Record<string, unknown>>).values()];
    const transport = stats.find((s) => s.type === 'transport');
    const pair = stats.find((s) => s.id === transport?.selectedCandidatePairId);
    return stats.find((s) => s.id === pair?.localCandidateId)?.address as string | undefined;
  });
}
