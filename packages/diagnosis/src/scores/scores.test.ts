import { describe, expect, it } from 'vitest';
import { CallDiagnosis } from '../engine.js';
import { series, stream } from '../test-support.js';
import { audioMos, audioR, audioShortfall, delayImpairment, listeningMos, lossImpairment, mosFromR } from './emodel.js';
import { VIDEO_MODEL, videoMos, videoShortfall } from './video.js';
import { experienced, missedPct, participantScores, streamWeight } from './windows.js';

describe('E-model', () => {
  it('gives the G.107 defaults: R 93.2 and MOS 4.41 without delay or loss', () => {
    expect(mosFromR(93.2)).toBeCloseTo(4.41, 2);
    expect(delayImpairment(0)).toBe(0);
    expect(lossImpairment(0, { ie: 0, bpl: 25.1 })).toBe(0);
  });

  it('charges delay gently until 177 ms one way, then steeply', () => {
    expect(delayImpairment(150)).toBeCloseTo(3.6, 6);
    expect(delayImpairment(300)).toBeCloseTo(0.024 * 300 + 0.11 * 122.7, 6);
  });

  it('charges loss by the codec robustness: 5 % with Bpl 25.1 costs 15.8', () => {
    expect(lossImpairment(5, { ie: 0, bpl: 25.1 })).toBeCloseTo((95 * 5) / 30.1, 6);
  });

  it('maps R to MOS with its ends', () => {
    expect(mosFromR(-5)).toBe(1);
    expect(mosFromR(120)).toBe(4.5);
    expect(mosFromR(50)).toBeCloseTo(2.58, 2);
  });

  it('falls as loss and delay rise', () => {
    const at = (lossPct: number, rttMs: number) => audioMos({ rttMs, jitterBufferMs: 20, lossPct, codec: 'opus' });
    expect(at(0, 20)).toBeGreaterThan(at(2, 20));
    expect(at(2, 20)).toBeGreaterThan(at(10, 20));
    expect(at(0, 300)).toBeGreaterThan(at(0, 600));
    expect(audioR({ rttMs: 0, jitterBufferMs: 0, lossPct: 0, codec: 'PCMU' })).toBeCloseTo(93.2 - 0.024 * 20, 6);
  });
});

describe("a second's missed audio", () => {
  it('is the concealed share, else the packets lost; a share of each when weighed; all of a second without packets', () => {
    expect(missedPct({ packets: 50, concealedPct: 4, lossPct: 10 })).toBe(4);
    expect(missedPct({ packets: 50, concealedPct: null, lossPct: 10 })).toBe(10);
    expect(missedPct({ packets: 50, concealedPct: 4, lossPct: 10 }, 0)).toBe(10);
    expect(missedPct({ packets: 50, concealedPct: 4, lossPct: 10 }, 0.75)).toBeCloseTo(5.5, 9);
    expect(missedPct({ packets: 50, concealedPct: 4, lossPct: null }, 0)).toBe(4);
    expect(missedPct({ packets: 0, concealedPct: 0, lossPct: null }, 0.5)).toBe(100);
    expect(missedPct({ packets: null, concealedPct: null, lossPct: null })).toBeNull();
  });
});

describe('video score', () => {
  const base = { kbps: 1500, width: 640, height: 360, fps: 30, frozen: 0, lossPct: 0, codec: 'VP8' };
  it('is high for a well-fed 360p30 stream and falls with rate, frame rate, resolution and freezes', () => {
    const good = videoMos(base);
    expect(good).toBeGreaterThan(3.8);
    expect(videoMos({ ...base, kbps: 300 })).toBeLessThan(good);
    expect(videoMos({ ...base, fps: 8 })).toBeLessThan(good);
    expect(videoMos({ ...base, width: 320, height: 180, kbps: 375 })).toBeLessThan(good);
    expect(videoMos({ ...base, frozen: 0.5 })).toBeCloseTo(1 + (good - 1) / 2, 6);
    expect(videoMos({ ...base, lossPct: VIDEO_MODEL.lossScalePct })).toBeCloseTo(1 + (good - 1) / Math.E, 6);
  });

  it('credits a codec that needs fewer bits', () => {
    expect(videoMos({ ...base, kbps: 200, codec: 'VP9' })).toBeGreaterThan(videoMos({ ...base, kbps: 200 }));
  });

  it("says what lowers it: a clean 10-fps camera's frame rate, a lossy stream's loss", () => {
    const camera = { kbps: 1200, width: 1280, height: 720, fps: 10, frozen: 0, lossPct: 0, codec: 'vp8' };
    const clean = videoShortfall(camera)!;
    expect(Object.entries(clean).sort((a, b) => b[1] - a[1])[0]![0]).toBe('frameRate');
    expect(clean.loss).toBe(0);
    expect(videoMos(camera) + clean.frameRate).toBeLessThanOrEqual(5);
    const lossy = videoShortfall({ ...camera, fps: 30, lossPct: 10 })!;
    expect(lossy.loss).toBeGreaterThan(lossy.frameRate);
    expect(videoShortfall({ ...camera, fps: 0 })).toBeNull();
    const audio = { rttMs: 600, jitterBufferMs: 100, lossPct: 0, codec: 'opus' };
    expect(audioShortfall(audio).loss).toBe(0);
    expect(audioShortfall(audio).delay).toBeCloseTo(audioMos({ ...audio, rttMs: 0, jitterBufferMs: 0 }) - audioMos(audio), 9);
  });

  it("does not charge a shared screen's low frame rate or held frames: a still page sends a frame or two a second", () => {
    const still = { kbps: 20, width: 1280, height: 720, fps: 2, frozen: 0.6, lossPct: 0, codec: 'VP8' };
    expect(videoMos({ ...still, screenshare: true })).toBeGreaterThan(3.8);
    expect(videoMos(still)).toBeLessThan(2);
    expect(videoShortfall({ ...still, screenshare: true })!.frameRate).toBe(0);
    // Scrolling, its bits count, on a page's scale: the lab's clean scroll at 720p15 sent ~400 kbit/s, its encoder limited by nothing.
    expect(videoMos({ ...still, fps: 15, frozen: 0, screenshare: true })).toBeLessThan(
      videoMos({ ...still, fps: 15, kbps: 400, frozen: 0, screenshare: true }),
    );
    expect(videoMos({ ...still, fps: 15, kbps: 400, frozen: 0, screenshare: true })).toBeGreaterThan(4.2);
    expect(videoMos({ ...still, fps: 15, kbps: 400, frozen: 0 })).toBeLessThan(3);
  });

  it('is 1 with no picture', () => {
    expect(videoMos({ ...base, fps: 0 })).toBe(1);
  });
});

describe("an audio window's score", () => {
  /** The score of bob's received audio over seconds 0–4, from the fields of each second. */
  const windowScore = (fields: Parameters<typeof series>[3]) => {
    const d = new CallDiagnosis();
    d.declareStream(stream(21, 'bob', 'in', 'audio'));
    d.addStreamSamples(series(21, 0, 5, fields));
    return d.finish()[0]!.mos;
  };

  it('takes the concealed share as the effective loss where reported (FEC-repaired loss costs nothing), else the packets lost', () => {
    expect(windowScore(() => ({ lossPct: 4, concealedPct: 0.5 }))).toBeCloseTo(
      audioMos({ rttMs: 0, jitterBufferMs: 0, lossPct: 0.5, codec: null }),
      9,
    );
    expect(windowScore(() => ({ lossPct: 4 }))).toBeCloseTo(audioMos({ rttMs: 0, jitterBufferMs: 0, lossPct: 4, codec: null }), 9);
  });

  it("adds the jitter buffer's reported delay to the mouth-to-ear delay, else twice the jitter", () => {
    expect(windowScore(() => ({ lossPct: 0, jitterMs: 10, jitterBufferMs: 250 }))).toBeCloseTo(
      audioMos({ rttMs: 0, jitterBufferMs: 250, lossPct: 0, codec: null }),
      9,
    );
    expect(windowScore(() => ({ lossPct: 0, jitterMs: 10 }))).toBeCloseTo(
      audioMos({ rttMs: 0, jitterBufferMs: 20, lossPct: 0, codec: null }),
      9,
    );
  });

  it('says what a listener hears apart from what a conversation suffers: sounds fine, but 400 ms late', () => {
    const d = new CallDiagnosis();
    d.declareStream(stream(21, 'bob', 'in', 'audio'));
    d.addStreamSamples(series(21, 0, 5, () => ({ lossPct: 0, jitterBufferMs: 80 })));
    expect(d.finish()[0]!.delayMs).toBeCloseTo(80 + 20, 9);
    // A long path: 600 ms round trip and a 100-ms buffer, no loss — a clean sound, a poor conversation.
    const late = { rttMs: 600, jitterBufferMs: 100, lossPct: 0, codec: 'opus' };
    const window = { mos: audioMos(late), lowers: audioShortfall(late) };
    expect(listeningMos(window)).toBeCloseTo(audioMos({ ...late, rttMs: 0, jitterBufferMs: 0 }), 9);
    expect(listeningMos(window)).toBeGreaterThan(4.3);
    expect(window.mos).toBeLessThan(3.6);
    // Loss is heard: it stays in the listening part.
    const lossy = { ...late, lossPct: 10 };
    expect(listeningMos({ mos: audioMos(lossy), lowers: audioShortfall(lossy) })).toBeLessThan(listeningMos(window) - 0.5);
  });
});

describe("a participant's score: what it saw and heard", () => {
  const at = (kind: 'audio' | 'video', mos: number, weight: number, streamId = 1) => ({
    ts: 0,
    streamId,
    participant: 'bob',
    kind,
    mos,
    lowers: {},
    weight,
  });
  const bob = (...points: ReturnType<typeof at>[]) => participantScores(points).get('bob')![0]!.mos;

  it('is no lower for a thumbnail beside the large picture, nor for a silent listener beside the speaker', () => {
    // Through an SFU: the speaker at 720p (922 k pixels) scores 4.2, a 180p thumbnail (58 k) 2.4; a speaker's audio at 32 kbit/s, a silent one at 2.
    const seen = (4.2 * 922 + 2.4 * 58) / (922 + 58);
    const heard = (4.4 * 32 + 3 * 2) / 34;
    expect(bob(at('video', 4.2, 922, 1), at('video', 2.4, 58, 2), at('audio', 4.4, 32, 3), at('audio', 3, 2, 4))).toBeCloseTo(
      experienced(heard, seen),
      9,
    );
    expect(experienced(heard, seen)).toBeGreaterThan(4);
  });

  it('falls with bad sound or a stopped picture, each on its own, and most with both', () => {
    const clean = experienced(4.4, 4.2);
    expect(clean).toBeGreaterThan(4.2);
    expect(experienced(1.5, 4.2)).toBeLessThan(2.5);
    expect(experienced(4.4, 1)).toBeLessThan(2);
    expect(experienced(1.2, 1)).toBeLessThan(Math.min(experienced(1.2, 4.2), experienced(4.4, 1)));
    expect(experienced(5, 5)).toBe(5);
    expect(experienced(null, 3.1)).toBe(3.1);
    expect(experienced(2.7, null)).toBe(2.7);
  });

  it("weighs a stream's audio by its rate and its video by its picture's size, a frozen picture keeping its size", () => {
    expect(streamWeight('audio', { kbps: 32, width: null, height: null })).toBe(32);
    expect(streamWeight('audio', { kbps: 0, width: null, height: null })).toBe(1);
    expect(streamWeight('video', { kbps: 5, width: 1280, height: 720 })).toBeCloseTo(921.6, 6);
    expect(streamWeight('video', { kbps: 900, width: null, height: 360 })).toBeCloseTo(230.4, 6);
    expect(streamWeight('video', { kbps: 900, width: null, height: null })).toBe(1);
  });
});
