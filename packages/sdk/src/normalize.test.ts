import { describe, expect, it } from 'vitest';
import recorded from './fixtures/chromium-loopback.json' with { type: 'json' };
import { normalize, type StreamSample } from './normalize.js';
import type { StatEntry, StatsSnapshot } from './stats.js';

type Side = 'sender' | 'receiver';
const snapshot = (k: number, side: Side): Map<string, StatEntry> =>
  new Map((recorded.snapshots[k]![side] as StatEntry[]).map((e) => [e.id, structuredClone(e)]));
const entry = (snap: StatsSnapshot, type: string, kind?: string) =>
  [...snap.values()].find((e) => e.type === type && (kind === undefined || e.kind === kind))!;
const stream = (samples: StreamSample[], key: RegExp) => samples.find((s) => key.test(s.key))!;

describe('normalize on recorded Chromium reports', () => {
  it('turns sender counters into per-interval values', () => {
    const prev = snapshot(0, 'sender');
    const cur = snapshot(1, 'sender');
    const { streams, connection } = normalize(prev, cur);
    const video = stream(streams, /^out:video:/);
    const [p, c] = [entry(prev, 'outbound-rtp', 'video'), entry(cur, 'outbound-rtp', 'video')];
    const expectedKbps = (((c.bytesSent as number) - (p.bytesSent as number)) * 8) / (c.timestamp - p.timestamp);
    expect(video.values.kbps).toBeCloseTo(expectedKbps, 9);
    expect(video.values.packets).toBe((c.packetsSent as number) - (p.packetsSent as number));
    expect(video.values.width).toBe(c.frameWidth);
    expect(video.values.rttMs).toBeCloseTo((entry(cur, 'remote-inbound-rtp', 'video').roundTripTime as number) * 1000, 9);
    expect(video.values.qualityLimitation).toBe(0);
    expect(video.identity).toMatchObject({ direction: 'out', kind: 'video', codec: 'VP8', ssrc: c.ssrc });
    expect(stream(streams, /^out:audio:/).identity.codec).toBe('opus');
    expect(connection?.values.rttMs).toBeGreaterThanOrEqual(0);
    expect(connection?.values.availableOutKbps).toBeGreaterThan(0);
    expect(connection?.values.sentKbps).toBeGreaterThan(0);
    expect(connection?.localCandidateType).toBe('host');
  });

  it('reads frame rate, resolution and loss on the receiving side', () => {
    const { streams } = normalize(snapshot(1, 'receiver'), snapshot(2, 'receiver'));
    const video = stream(streams, /^in:video:/);
    expect(video.values.fps).toBeGreaterThan(20);
    expect(video.values.height).toBe(entry(snapshot(2, 'receiver'), 'inbound-rtp', 'video').frameHeight);
    expect(video.values.frames).toBeGreaterThan(0);
    expect(video.values.lossPct).toBe(0);
    expect(video.identity.implementation).toBeTruthy();
    expect(stream(streams, /^in:audio:/).values.jitterMs).toBeGreaterThanOrEqual(0);
  });

  it('reads concealment, jitter-buffer delay, freezes and audio level from the counters of one interval', () => {
    const [prev, cur] = [snapshot(1, 'receiver'), snapshot(2, 'receiver')];
    const audioIn = [entry(prev, 'inbound-rtp', 'audio'), entry(cur, 'inbound-rtp', 'audio')];
    Object.assign(audioIn[0]!, { concealedSamples: 1_000, totalSamplesReceived: 48_000, audioLevel: 0.1 });
    Object.assign(audioIn[0]!, { silentConcealedSamples: 500, concealmentEvents: 10 });
    Object.assign(audioIn[1]!, { concealedSamples: 4_400, silentConcealedSamples: 1_500, totalSamplesReceived: 96_000, audioLevel: 0.25, concealmentEvents: 13 });
    const videoIn = [entry(prev, 'inbound-rtp', 'video'), entry(cur, 'inbound-rtp', 'video')];
    Object.assign(videoIn[0]!, { jitterBufferDelay: 10, jitterBufferEmittedCount: 200, totalFreezesDuration: 1.5 });
    Object.assign(videoIn[1]!, { jitterBufferDelay: 12.4, jitterBufferEmittedCount: 230, totalFreezesDuration: 2.1 });
    const { streams } = normalize(prev, cur);
    const audio = stream(streams, /^in:audio:/).values;
    expect(audio.concealedPct).toBeCloseTo(5, 9);
    expect(audio.audioLevel).toBe(0.25);
    // 5 % of the interval concealed, in 3 events.
    expect(audio.concealmentEventMs).toBeCloseTo((0.05 * (audioIn[1]!.timestamp - audioIn[0]!.timestamp)) / 3, 9);
    const video = stream(streams, /^in:video:/).values;
    expect(video.jitterBufferMs).toBeCloseTo(80, 9);
    expect(video.freezeMs).toBeCloseTo(600, 9);
    // Fields of the other kind are not sent at all.
    expect(video).not.toHaveProperty('concealedPct');
    expect(audio).not.toHaveProperty('freezeMs');
  });

  it('gives no jitter-buffer delay for an interval that emitted nothing, and the sender\'s audio level from its media source', () => {
    const [prev, cur] = [snapshot(1, 'receiver'), snapshot(2, 'receiver')];
    for (const e of [entry(prev, 'inbound-rtp', 'video'), entry(cur, 'inbound-rtp', 'video')]) Object.assign(e, { jitterBufferDelay: 4, jitterBufferEmittedCount: 100 });
    expect(stream(normalize(prev, cur).streams, /^in:video:/).values.jitterBufferMs).toBeNull();
    const sender = snapshot(2, 'sender');
    const out = entry(sender, 'outbound-rtp', 'audio');
    // The recording kept no media-source entries: one as Chromium reports it.
    sender.set(out.mediaSourceId as string, { id: out.mediaSourceId as string, type: 'media-source', timestamp: out.timestamp, kind: 'audio', audioLevel: 0.5 });
    expect(stream(normalize(snapshot(1, 'sender'), sender).streams, /^out:audio:/).values.audioLevel).toBe(0.5);
  });

  it("gives the camera's frame rate beside the sent one, from the video's media source", () => {
    const sender = snapshot(2, 'sender');
    expect(stream(normalize(snapshot(1, 'sender'), sender).streams, /^out:video:/).values.captureFps).toBeNull();
    const out = entry(sender, 'outbound-rtp', 'video');
    sender.set(out.mediaSourceId as string, { id: out.mediaSourceId as string, type: 'media-source', timestamp: out.timestamp, kind: 'video', framesPerSecond: 29 });
    const video = stream(normalize(snapshot(1, 'sender'), sender).streams, /^out:video:/);
    expect(video.values.captureFps).toBe(29);
    expect(video.values.fps).toBe(out.framesPerSecond);
  });

  it('gives no rates for a stream seen for the first time, but keeps what needs no history', () => {
    const { streams } = normalize(undefined, snapshot(0, 'receiver'));
    const video = stream(streams, /^in:video:/);
    expect(video.values.kbps).toBeNull();
    expect(video.values.packets).toBeNull();
    expect(video.values.width).toBeGreaterThan(0);
  });

  it('gives null, never negative, when counters went backwards', () => {
    const { streams, connection } = normalize(snapshot(2, 'sender'), snapshot(0, 'sender'));
    for (const s of streams) {
      expect(s.values.kbps).toBeNull();
      expect(s.values.packets).toBeNull();
    }
    expect(connection?.values.sentKbps).toBeNull();
  });

  it('gives null for fields the browser omits', () => {
    const cur = snapshot(1, 'receiver');
    const video = entry(cur, 'inbound-rtp', 'video');
    delete video.bytesReceived;
    delete video.frameWidth;
    delete video.framesPerSecond;
    delete video.framesDecoded;
    const s = stream(normalize(snapshot(0, 'receiver'), cur).streams, /^in:video:/);
    expect(s.values.kbps).toBeNull();
    expect(s.values.width).toBeNull();
    expect(s.values.fps).toBeNull();
  });

  it('keeps simulcast layers apart', () => {
    const layered = (k: number) => {
      const snap = snapshot(k, 'sender');
      const base = entry(snap, 'outbound-rtp', 'video');
      snap.delete(base.id);
      for (const [rid, ssrc, share] of [['q', 111, 0.25], ['f', 222, 0.75]] as const) {
        const layer = { ...base, id: `${base.id}-${rid}`, rid, ssrc, bytesSent: Math.round((base.bytesSent as number) * share) };
        snap.set(layer.id, layer);
      }
      return snap;
    };
    const { streams } = normalize(layered(0), layered(1));
    const layers = streams.filter((s) => s.identity.direction === 'out' && s.identity.kind === 'video');
    expect(layers.map((s) => [s.key, s.identity.rid])).toEqual([
      ['out:video:111', 'q'],
      ['out:video:222', 'f'],
    ]);
    expect(layers[1]!.values.kbps! / layers[0]!.values.kbps!).toBeCloseTo(3, 1);
  });

  it('treats a new SSRC under the same stats id as a new stream', () => {
    const cur = snapshot(1, 'sender');
    entry(cur, 'outbound-rtp', 'video').ssrc = 999;
    const s = stream(normalize(snapshot(0, 'sender'), cur).streams, /^out:video:999$/);
    expect(s.values.kbps).toBeNull();
  });

  it('never yields a negative or non-finite value for any pair of recorded reports', () => {
    for (const side of ['sender', 'receiver'] as const) {
      for (let a = 0; a < 3; a++) {
        for (let b = 0; b < 3; b++) {
          const { streams, connection } = normalize(snapshot(a, side), snapshot(b, side));
          const values = [...streams.flatMap((s) => Object.values(s.values)), ...Object.values(connection?.values ?? {})];
          for (const v of values) if (v !== null && v !== undefined) expect(Number.isFinite(v) && v >= 0).toBe(true);
        }
      }
    }
  });
});
