import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { launchChromium, peerContext } from '@rtcscope/lab';
import type { CallDetail } from '@rtcscope/protocol';
import { apiReader, startProduct } from '../support/product.js';

/**
 * livekit-client's Room, as much of it as `monitorLiveKitRoom` reads: its name, the local identity, the
 * publications by SID and its events. The connections are real and made as livekit-client makes its own,
 * with `new RTCPeerConnection()` while the room connects, before its name and identity are known to the app.
 */
function installRoom([name, identity]: readonly [string, string]) {
  const handlers = new Map<string, Set<(...args: unknown[]) => void>>();
  const room = {
    name,
    localParticipant: { identity, trackPublications: new Map<string, unknown>() },
    remoteParticipants: new Map<string, { trackPublications: Map<string, unknown> }>(),
    on(event: string, f: (...args: unknown[]) => void) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event)!.add(f);
    },
    off(event: string, f: (...args: unknown[]) => void) {
      handlers.get(event)?.delete(f);
    },
    emit(event: string, ...args: unknown[]) {
      for (const f of handlers.get(event) ?? []) f(...args);
    },
  };
  (window as unknown as { room: typeof room }).room = room;
}

test("one call monitors a LiveKit participant: the room's name is the call, the identity the participant, tracks named by SID", async () => {
  const product = await startProduct('sdk-livekit');
  const { server, keys } = product;
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-livekit'));
  try {
    const alice = await (await peerContext(browser)).newPage();
    const bob = await (await peerContext(browser)).newPage();
    for (const [page, identity] of [
      [alice, 'alice@example.com'],
      [bob, 'bob@example.com'],
    ] as const) {
      await page.goto(`${server.url}/healthz`);
      await page.setContent('<!doctype html><title>livekit app</title>');
      await page.addScriptTag({ url: `${server.url}/sdk/rtcscope.js` });
      await page.evaluate(installRoom, ['Team room #1', identity] as const);
      await page.evaluate(
        ({ server, ingestKey }) => {
          const w = window as unknown as { RtcScope: typeof import('@rtcscope/sdk'); room: never; lk: unknown; Original: unknown };
          w.Original = RTCPeerConnection;
          w.lk = w.RtcScope.monitorLiveKitRoom(w.room, { server, ingestKey, intervalMs: 500 });
        },
        { server: server.url, ingestKey: keys.ingestKey },
      );
    }
    // "Connecting": alice's publisher connection sends her camera to bob's subscriber connection.
    const offer = await alice.evaluate(async () => {
      const w = window as unknown as { pc: RTCPeerConnection; cam: MediaStreamTrack };
      const media = await navigator.mediaDevices.getUserMedia({ video: { width: 320, height: 180 } });
      w.cam = media.getVideoTracks()[0]!;
      w.pc = new RTCPeerConnection();
      w.pc.addTrack(w.cam, media);
      await w.pc.setLocalDescription();
      await new Promise<void>((resolve) =>
        w.pc.iceGatheringState === 'complete'
          ? resolve()
          : w.pc.addEventListener('icegatheringstatechange', () => w.pc.iceGatheringState === 'complete' && resolve()),
      );
      return w.pc.localDescription!.sdp;
    });
    const answer = await bob.evaluate(async (sdp) => {
      const w = window as unknown as { pc: RTCPeerConnection; copy: Promise<MediaStreamTrack> };
      w.pc = new RTCPeerConnection();
      w.copy = new Promise((resolve) => w.pc.addEventListener('track', (e) => resolve(e.track)));
      await w.pc.setRemoteDescription({ type: 'offer', sdp });
      await w.pc.setLocalDescription();
      await new Promise<void>((resolve) =>
        w.pc.iceGatheringState === 'complete'
          ? resolve()
          : w.pc.addEventListener('icegatheringstatechange', () => w.pc.iceGatheringState === 'complete' && resolve()),
      );
      return w.pc.localDescription!.sdp;
    }, offer);
    await alice.evaluate(async (sdp) => {
      const w = window as unknown as { pc: RTCPeerConnection };
      await w.pc.setRemoteDescription({ type: 'answer', sdp });
    }, answer);

    // Connected: alice has published TR_cam; bob subscribes to it.
    await alice.evaluate(() => {
      const w = window as unknown as {
        room: { emit(e: string, ...a: unknown[]): void; localParticipant: { trackPublications: Map<string, unknown> } };
        cam: MediaStreamTrack;
      };
      w.room.localParticipant.trackPublications.set('TR_cam', { trackSid: 'TR_cam', track: { mediaStreamTrack: w.cam } });
      w.room.emit('connected');
    });
    await bob.evaluate(async () => {
      const w = window as unknown as { room: { emit(e: string, ...a: unknown[]): void }; copy: Promise<MediaStreamTrack> };
      w.room.emit('connected');
      const copy = await w.copy;
      w.room.emit('trackSubscribed', { mediaStreamTrack: copy }, { trackSid: 'TR_cam', track: { mediaStreamTrack: copy } });
    });

    const get = apiReader({ server, keys });
    // Until the first batch is stored the call is not there yet (404): its participants are missing.
    const videoOf = (d: Partial<CallDetail>, who: string) =>
      d.participants
        ?.find((p) => p.id === who)
        ?.connections.flatMap((c) => c.streams)
        .find((s) => s.kind === 'video');
    await expect
      .poll(
        async () => {
          const d = await get<Partial<CallDetail>>('/calls/Team-room-1');
          return [videoOf(d, 'alice@example.com'), videoOf(d, 'bob@example.com')].map(
            (s) => s && { direction: s.direction, trackId: s.trackId ?? null },
          );
        },
        { timeout: 20_000 },
      )
      .toEqual([
        { direction: 'out', trackId: 'livekit:TR_cam' },
        { direction: 'in', trackId: 'livekit:TR_cam' },
      ]);
    const detail = await get<CallDetail>('/calls/Team-room-1');
    expect(videoOf(detail, 'bob@example.com')?.from).toBe('alice@example.com');

    // The room disconnects: the monitor says goodbye and the page's RTCPeerConnection is its own again.
    const after = await alice.evaluate(() => {
      const w = window as unknown as {
        room: { emit(e: string): void };
        lk: { monitor: { status: { connected: boolean } } | null };
        Original: unknown;
      };
      w.room.emit('disconnected');
      return { restored: RTCPeerConnection === w.Original, monitored: w.lk.monitor !== null };
    });
    expect(after).toEqual({ restored: true, monitored: true });
  } finally {
    await browser.close();
    await server.stop();
  }
});
