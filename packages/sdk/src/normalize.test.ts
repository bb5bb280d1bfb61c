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
    // The encoder's mean quantizer over the interval's frames: Chromium's qpSum over its frames encoded.
    expect(video.values.qp).toBeCloseTo(
      ((c.qpSum as number) - (p.qpSum as number)) / ((c.framesEncoded as number) - (p.framesEncoded as number)),
      9,
    );
    // The encoder's time per frame, ms: Chromium's totalEncodeTime (s) over its frames encoded.
    const encodeMs =
      (((c.totalEncodeTime as number) - (p.totalEncodeTime as number)) * 1000) /
      ((c.framesEncoded as number) - (p.framesEncoded as number));
    expect(encodeMs).toBeGreaterThan(0);
    expect(video.values.encodeMs).toBeCloseTo(encodeMs, 9);
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
    // The decoder's: the same frames as the sender's, so the same mean (17.7 in this recording).
    expect(video.values.qp).toBeCloseTo((5575 - 5043) / (235 - 205), 9);
    expect(video.identity.implementation).toBeTruthy();
    expect(video.identity.contentType).toBeUndefined();
    expect(stream(streams, /^in:audio:/).values.jitterMs).toBeGreaterThanOrEqual(0);
  });

  it("says a shared screen's video as Chromium does (contentType screenshare), on both sides", () => {
    for (const [side, key] of [
      ['sender', /^out:video:/],
      ['receiver', /^in:video:/],
    ] as const) {
      const [prev, cur] = [snapshot(1, side), snapshot(2, side)];
      for (const s of [prev, cur]) entry(s, side === 'sender' ? 'outbound-rtp' : 'inbound-rtp', 'video').contentType = 'screenshare';
      expect(stream(normalize(prev, cur).streams, key).identity.contentType).toBe('screenshare');
    }
  });

  it('reads concealment, jitter-buffer delay, freezes and audio level from the counters of one interval', () => {
    const [prev, cur] = [snapshot(1, 'receiver'), snapshot(2, 'receiver')];
    const audioIn = [entry(prev, 'inbound-rtp', 'audio'), entry(cur, 'inbound-rtp', 'audio')];
    Object.assign(audioIn[0]!, { concealedSamples: 1_000, totalSamplesReceived: 48_000, audioLevel: 0.1 });
    Object.assign(audioIn[0]!, { silentConcealedSamples: 500, concealmentEvents: 10 });
    Object.assign(audioIn[1]!, {
      concealedSamples: 4_400,
      silentConcealedSamples: 1_500,
      totalSamplesReceived: 96_000,
      audioLevel: 0.25,
      concealmentEvents: 13,
    });
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

  it("gives no jitter-buffer delay for an interval that emitted nothing, and the sender's audio level from its media source", () => {
    const [prev, cur] = [snapshot(1, 'receiver'), snapshot(2, 'receiver')];
    for (const e of [entry(prev, 'inbound-rtp', 'video'), entry(cur, 'inbound-rtp', 'video')])
      Object.assign(e, { jitterBufferDelay: 4, jitterBufferEmittedCount: 100 });
    expect(stream(normalize(prev, cur).streams, /^in:video:/).values.jitterBufferMs).toBeNull();
    const sender = snapshot(2, 'sender');
    const out = entry(sender, 'outbound-rtp', 'audio');
    // The recording kept no media-source entries: one as Chromium reports it.
    sender.set(out.mediaSourceId as string, {
      id: out.mediaSourceId as string,
      type: 'media-source',
      timestamp: out.timestamp,
      kind: 'audio',
      audioLevel: 0.5,
    });
    expect(stream(normalize(snapshot(1, 'sender'), sender).streams, /^out:audio:/).values.audioLevel).toBe(0.5);
  });

  it('gives no jitter for an interval in which no packet arrived: the browser keeps its last estimate', () => {
    const [prev, cur] = [snapshot(1, 'receiver'), snapshot(2, 'receiver')];
    const [before, now] = [entry(prev, 'inbound-rtp', 'video'), entry(cur, 'inbound-rtp', 'video')];
    Object.assign(now, {
      packetsReceived: before.packetsReceived,
      bytesReceived: before.bytesReceived,
      packetsLost: before.packetsLost,
      jitter: 0.021,
    });
    expect(stream(normalize(prev, cur).streams, /^in:video:/).values).toMatchObject({ packets: 0, kbps: 0, jitterMs: null });
  });

  it("gives the camera's frame rate beside the sent one, from the video's media source", () => {
    const [prev, cur] = [snapshot(1, 'sender'), snapshot(2, 'sender')];
    expect(stream(normalize(prev, cur).streams, /^out:video:/).values.captureFps).toBeNull();
    const [p, c] = [entry(prev, 'outbound-rtp', 'video'), entry(cur, 'outbound-rtp', 'video')];
    // The recording kept no media-source entries: as Chromium reports them, the camera having given 29 frames in the second.
    const source = (e: StatEntry, frames: number) => ({
      id: e.mediaSourceId as string,
      type: 'media-source',
      timestamp: e.timestamp,
      kind: 'video',
      frames,
      framesPerSecond: 31,
    });
    prev.set(p.mediaSourceId as string, source(p, 1000));
    cur.set(c.mediaSourceId as string, source(c, 1000 + (29 * (c.timestamp - p.timestamp)) / 1000));
    const video = stream(normalize(prev, cur).streams, /^out:video:/);
    expect(video.values.captureFps).toBeCloseTo(29, 9);
    expect(video.values.fps).toBeCloseTo(
      (((c.framesEncoded as number) - (p.framesEncoded as number)) * 1000) / (c.timestamp - p.timestamp),
      9,
    );
    // A stream's first sample has no interval: the browser's snapshot, the only figure there is.
    expect(stream(normalize(undefined, cur).streams, /^out:video:/).values.captureFps).toBe(31);
  });

  it("names a sent stream by its media source's track, which a receiver's copy is named by where the SDP's msid survives (an SFU)", () => {
    const [prev, cur] = [snapshot(1, 'sender'), snapshot(2, 'sender')];
    const c = entry(cur, 'outbound-rtp', 'video');
    expect(stream(normalize(prev, cur).streams, /^out:video:/).identity.trackId).toBeUndefined();
    cur.set(c.mediaSourceId as string, {
      id: c.mediaSourceId as string,
      type: 'media-source',
      timestamp: c.timestamp,
      kind: 'video',
      trackIdentifier: '9f3c2a1e-camera',
      frames: 1,
    });
    expect(stream(normalize(prev, cur).streams, /^out:video:/).identity.trackId).toBe('9f3c2a1e-camera');
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
      for (const [rid, ssrc, share] of [
        ['q', 111, 0.25],
        ['f', 222, 0.75],
      ] as const) {
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

/** A snapshot from hand-written entries, in the shapes the W3C spec and the named browsers use. */
const reported = (...entries: StatEntry[]): StatsSnapshot => new Map(entries.map((e) => [e.id, e]));

describe('normalize on the faults real recordings showed', () => {
  const inbound = (timestamp: number, fields: Record<string, unknown>): StatEntry => ({
    id: 'IT01V',
    type: 'inbound-rtp',
    kind: 'video',
    timestamp,
    ...fields,
  });
  const outbound = (timestamp: number, fields: Record<string, unknown>): StatEntry => ({
    id: 'OT01V',
    type: 'outbound-rtp',
    kind: 'video',
    timestamp,
    ...fields,
  });
  const remoteIn = (timestamp: number, fields: Record<string, unknown>): StatEntry => ({
    id: 'RI01V',
    type: 'remote-inbound-rtp',
    kind: 'video',
    localId: 'OT01V',
    timestamp,
    ...fields,
  });
  const only = (prev: StatsSnapshot, cur: StatsSnapshot) => normalize(prev, cur).streams[0]!.values;

  it('counts no lost packets across two SSRCs under one stats id (Safari 17 invented up to 526)', () => {
    const before = reported(inbound(1000, { ssrc: 1, packetsReceived: 9000, packetsLost: 4 }));
    const after = reported(inbound(2000, { ssrc: 2, packetsReceived: 120, packetsLost: 530 }));
    expect(only(before, after)).toMatchObject({ packets: null, packetsLost: null, lossPct: null });
    // Sent: the far end's report on the old SSRC is never this stream's, nor a count across the two.
    const sentBefore = reported(
      outbound(1000, { ssrc: 1, packetsSent: 9000 }),
      remoteIn(1000, { ssrc: 1, packetsLost: 10, fractionLost: 0.02, roundTripTime: 0.05 }),
    );
    const stale = reported(
      outbound(2000, { ssrc: 2, packetsSent: 100 }),
      remoteIn(2000, { ssrc: 1, packetsLost: 12, fractionLost: 0.5, roundTripTime: 0.9, jitter: 0.2 }),
    );
    expect(only(sentBefore, stale)).toMatchObject({ packetsLost: null, lossPct: null, rttMs: null, jitterMs: null });
    const renewed = reported(
      outbound(2000, { ssrc: 2, packetsSent: 100 }),
      remoteIn(2000, { ssrc: 2, packetsLost: 536, fractionLost: 0, roundTripTime: 0.05 }),
    );
    expect(only(sentBefore, renewed)).toMatchObject({ packetsLost: null, lossPct: 0, rttMs: 50 });
  });

  it("reads a recording's 10-s poll by what was measured over it: the mean round trip and the share lost, not the last report's", () => {
    const pair = (timestamp: number, fields: Record<string, unknown>): StatEntry => ({
      id: 'CP01',
      type: 'candidate-pair',
      nominated: true,
      state: 'succeeded',
      timestamp,
      ...fields,
    });
    const transport = { id: 'T01', type: 'transport', timestamp: 0, selectedCandidatePairId: 'CP01' };
    const before = reported(
      transport,
      outbound(0, { ssrc: 1, packetsSent: 10_000 }),
      remoteIn(0, {
        ssrc: 1,
        packetsLost: 100,
        fractionLost: 0,
        roundTripTime: 0.04,
        totalRoundTripTime: 4,
        roundTripTimeMeasurements: 100,
      }),
      pair(0, { currentRoundTripTime: 0.04, totalRoundTripTime: 2, responsesReceived: 50 }),
    );
    // Ten reports over 10 s averaged 760 ms and lost 170 of 1,000 packets; the last one happened to say 90 ms and nothing lost.
    const after = reported(
      transport,
      outbound(10_000, { ssrc: 1, packetsSent: 11_000 }),
      remoteIn(10_000, {
        ssrc: 1,
        packetsLost: 270,
        fractionLost: 0,
        roundTripTime: 0.09,
        totalRoundTripTime: 11.6,
        roundTripTimeMeasurements: 110,
      }),
      pair(10_000, { currentRoundTripTime: 0.09, totalRoundTripTime: 5, responsesReceived: 54 }),
    );
    const coarse = normalize(before, after);
    expect(coarse.streams[0]!.values).toMatchObject({ lossPct: 17, rttMs: 760 });
    expect(coarse.connection!.values.rttMs).toBe(750);
    // The SDK's own second keeps the newest reading.
    const live = normalize(
      before,
      reported(
        transport,
        outbound(1000, { ssrc: 1, packetsSent: 10_100 }),
        remoteIn(1000, {
          ssrc: 1,
          packetsLost: 117,
          fractionLost: 0.17,
          roundTripTime: 0.09,
          totalRoundTripTime: 4.09,
          roundTripTimeMeasurements: 101,
        }),
        pair(1000, { currentRoundTripTime: 0.09, totalRoundTripTime: 2.09, responsesReceived: 51 }),
      ),
    );
    expect(live.streams[0]!.values).toMatchObject({ lossPct: 17, rttMs: 90 });
    expect(live.connection!.values.rttMs).toBe(90);
  });

  it('counts no lost packets over counters that went backwards on one SSRC (a reset)', () => {
    const before = reported(inbound(1000, { ssrc: 1, packetsReceived: 9000, packetsLost: 50 }));
    const after = reported(inbound(2000, { ssrc: 1, packetsReceived: 20, packetsLost: 0 }));
    expect(only(before, after)).toMatchObject({ packets: null, packetsLost: null });
    // Duplicates can lower the lost count while packets still arrive: that fall is real.
    const duplicated = reported(inbound(2000, { ssrc: 1, packetsReceived: 9100, packetsLost: 48 }));
    expect(only(before, duplicated)).toMatchObject({ packets: 100, packetsLost: 0 });
  });

  it("takes the frame rate from the interval's frame counter, the browser's snapshot only on a stream's first sample", () => {
    // Firefox 118: 0 fps reported for an interval of 10 s in which 242 frames were encoded.
    const sent = only(
      reported(outbound(0, { ssrc: 1, framesEncoded: 1000, framesPerSecond: 30 })),
      reported(outbound(10_000, { ssrc: 1, framesEncoded: 1242, framesPerSecond: 0 })),
    );
    expect(sent.fps).toBeCloseTo(24.2, 9);
    // Chrome: 12 fps for 7 frames decoded in 999 ms at a stream's start.
    const received = only(
      reported(inbound(1000, { ssrc: 1, framesDecoded: 0 })),
      reported(inbound(1999, { ssrc: 1, framesDecoded: 7, framesPerSecond: 12 })),
    );
    expect(received.fps).toBeCloseTo(7.007, 3);
    // A stream's first sample: the snapshot, but never more frames in a second than the stream has had.
    expect(normalize(undefined, reported(inbound(1999, { ssrc: 1, framesDecoded: 40, framesPerSecond: 12 }))).streams[0]!.values.fps).toBe(
      12,
    );
    expect(normalize(undefined, reported(inbound(1999, { ssrc: 1, framesDecoded: 7, framesPerSecond: 182 }))).streams[0]!.values.fps).toBe(
      7,
    );
  });

  it('follows an SSRC that moves to another stats id as the same stream, with no rate for the interval it moved in', () => {
    const moved = (id: string, timestamp: number, bytes: number): StatEntry => ({
      id,
      type: 'inbound-rtp',
      kind: 'video',
      timestamp,
      ssrc: 5,
      bytesReceived: bytes,
      framesDecoded: bytes / 1000,
    });
    const across = normalize(reported(moved('IT01V5', 1000, 100_000)), reported(moved('RTCInboundRTPVideoStream_5', 2000, 200_000)))
      .streams[0]!;
    expect(across.key).toBe('in:video:5');
    expect(across.values.kbps).toBeNull();
    const after = normalize(
      reported(moved('RTCInboundRTPVideoStream_5', 2000, 200_000)),
      reported(moved('RTCInboundRTPVideoStream_5', 3000, 300_000)),
    ).streams[0]!;
    expect(after.values).toMatchObject({ kbps: 800, fps: 100 });
  });

  it('gives null while a field is absent, and rates again once it is back for two reports', () => {
    const at = (timestamp: number, fields: Record<string, unknown>) => reported(inbound(timestamp, { ssrc: 1, ...fields }));
    const reports = [
      at(1000, { bytesReceived: 0, packetsReceived: 0 }),
      at(2000, {}),
      at(3000, { bytesReceived: 250_000, packetsReceived: 300 }),
      at(4000, { bytesReceived: 375_000, packetsReceived: 400 }),
    ];
    const kbps = reports.slice(1).map((cur, k) => normalize(reports[k], cur).streams[0]!.values.kbps);
    expect(kbps).toEqual([null, null, 1000]);
  });

  it('gives zeros, not gaps, for a first report of a stream that has sent nothing yet', () => {
    const idle = (timestamp: number) =>
      reported(outbound(timestamp, { ssrc: 1, bytesSent: 0, packetsSent: 0, framesEncoded: 0, framesPerSecond: 0 }));
    expect(only(idle(1000), idle(2000))).toMatchObject({ kbps: 0, packets: 0, fps: 0, frames: 0 });
  });

  it('gives no frame rate over an interval too short for whole frames to mean a rate', () => {
    // The monitor's last sample as it closes, 11 ms after the one before: 2 frames would read 182 fps.
    const values = only(reported(inbound(1000, { ssrc: 1, framesDecoded: 300 })), reported(inbound(1011, { ssrc: 1, framesDecoded: 302 })));
    expect(values.fps).toBeNull();
    expect(values.frames).toBe(2);
  });

  it("finds the camera's frame rate where the sent stream names no media source (Firefox), unless it could be either of two", () => {
    // As Firefox 153 reports them: no mediaSourceId on the outbound-rtp; media sources named by their track.
    const source = (id: string, timestamp: number, frames: number): StatEntry => ({
      id,
      type: 'media-source',
      kind: 'video',
      timestamp,
      frames,
      framesPerSecond: 30,
    });
    const sent = (timestamp: number) => outbound(timestamp, { ssrc: 1, framesEncoded: timestamp / 40 });
    const camera = (timestamp: number) => source('mediasource_video_1{a}', timestamp, timestamp / 40);
    expect(only(reported(sent(1000), camera(1000)), reported(sent(2000), camera(2000))).captureFps).toBe(25);
    const screen = (timestamp: number) => source('mediasource_video_2{b}', timestamp, timestamp / 100);
    expect(only(reported(sent(1000), camera(1000), screen(1000)), reported(sent(2000), camera(2000), screen(2000))).captureFps).toBeNull();
  });

  it('reads the received resolution from the track object where the RTP entry lacks it (Safari 14)', () => {
    const track = (timestamp: number): StatEntry => ({
      id: 'T01',
      type: 'track',
      kind: 'video',
      remoteSource: true,
      timestamp,
      frameWidth: 640,
      frameHeight: 480,
    });
    const values = only(
      reported(inbound(1000, { ssrc: 1, trackId: 'T01' }), track(1000)),
      reported(inbound(2000, { ssrc: 1, trackId: 'T01' }), track(2000)),
    );
    expect(values).toMatchObject({ width: 640, height: 480 });
  });
});
