import type { PrecallMedia, PrecallTransport } from '@rtcscope/protocol';
import { snapshotFrom, type StatsSnapshot } from '../stats.js';
import { MediaMeter } from './meter.js';
import { RelayPair } from './relay-pair.js';
import { TestSources } from './sources.js';

/** The video rates asked in turn, kbit/s: from what carries audio and a thumbnail to what carries 1080p. */
export const RATE_STEPS_KBPS = [250, 500, 1000, 2000, 4000] as const;

/** Seconds a rate is held at least: the sender takes about one to reach it, the rest is measured. */
const MIN_STEP_S = 3;
/** Times a full link's step is held again at most while what arrives still grows. */
const MAX_HOLDS = 3;

export interface MediaOptions {
  iceServers: RTCIceServer[];
  durationS: number;
  timeoutMs: number;
  /** The way media went when the browser does not say (the only one that connected). */
  fallbackTransport: PrecallTransport;
  /** The pair is up: the monitor watches it from here; what it returns runs before the pair closes. */
  onJoined: (pair: RelayPair) => () => Promise<void>;
  /** Share of the media step done, 0–1. */
  onProgress: (done: number) => void;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stats = async (pc: RTCPeerConnection): Promise<StatsSnapshot> => snapshotFrom(await pc.getStats());

/**
 * Media through the TURN server: video and a tone from one connection to the other, the video's rate
 * raised step by step until the link is full, and what arrived measured each second.
 */
export async function measureThroughRelay(options: MediaOptions): Promise<PrecallMedia> {
  const sources = new TestSources();
  let video: RTCRtpSender | undefined;
  let pair: RelayPair | undefined;
  let leaving = async () => {};
  try {
    pair = await RelayPair.join({
      iceServers: options.iceServers,
      timeoutMs: options.timeoutMs,
      // One way only: the receiving side sends nothing but its reports, so what the link carries is the test's video and tone.
      prepare: (a) => {
        video = a.addTransceiver(sources.video, { direction: 'sendonly' }).sender;
        a.addTransceiver(sources.audio, { direction: 'sendonly' });
      },
    });
    leaving = options.onJoined(pair);
    const firstMediaMs = await firstFrame(pair);
    const meter = new MediaMeter();
    const stepS = Math.max(MIN_STEP_S, Math.round(options.durationS / RATE_STEPS_KBPS.length));
    let seconds = 0;
    let full = 0;
    const measure = async (n: number) => {
      for (let s = 0; s < n; s++) {
        await wait(1000);
        const [a, b] = await Promise.all([stats(pair!.a), stats(pair!.b)]);
        meter.add(a, b);
        options.onProgress(Math.min(1, ++seconds / (stepS * RATE_STEPS_KBPS.length)));
      }
    };
    for (const target of RATE_STEPS_KBPS) {
      await setRate(video!, target);
      await measure(stepS);
      // A full link is held until what arrives stops growing (up to three times as long again): the
      // sender, still ramping or backed off after its probe, creeps toward the link's rate.
      for (let hold = 0; hold < MAX_HOLDS && meter.full(target); hold++) {
        const before = meter.stepPeak();
        await measure(stepS);
        if (meter.stepPeak() < before * 1.05) break;
      }
      // The rate above a full step is asked too: the sender probes for it, which fills the link at once
      // where a sender still ramping toward a rate equal to the link's had not.
      if (meter.endStep(target) && ++full === 2) break;
    }
    return meter.result({ ...pair.timing, ...(firstMediaMs === undefined ? {} : { firstMediaMs }) }, options.fallbackTransport);
  } finally {
    await leaving();
    pair?.close();
    sources.close();
  }
}

async function setRate(sender: RTCRtpSender, kbps: number): Promise<void> {
  const parameters = sender.getParameters();
  for (const encoding of parameters.encodings) encoding.maxBitrate = kbps * 1000;
  // Noise at a low rate would make the encoder shrink the picture; the rate, not the size, is what is probed.
  (parameters as { degradationPreference?: string }).degradationPreference = 'maintain-resolution';
  await sender.setParameters(parameters).catch(async () => {
    delete (parameters as { degradationPreference?: string }).degradationPreference;
    await sender.setParameters(parameters);
  });
}

/** From the first offer to the first video frame decoded on the receiving side, ms (up to 5 s after connecting). */
async function firstFrame(pair: RelayPair): Promise<number | undefined> {
  for (let i = 0; i < 50; i++) {
    for (const entry of (await stats(pair.b)).values()) {
      if (entry.type === 'inbound-rtp' && (entry.kind ?? entry.mediaType) === 'video' && Number(entry.framesDecoded) > 0) {
        return Math.round(performance.now() - pair.startedAt);
      }
    }
    await wait(100);
  }
  return undefined;
}
