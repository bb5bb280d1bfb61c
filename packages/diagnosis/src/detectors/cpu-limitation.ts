import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { heldByApp } from '../app-limits.js';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { StreamView } from '../view.js';

const CPU = QUALITY_LIMITATIONS.indexOf('cpu');
const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');
const {
  criticalFpsShare,
  unexplainedFpsShare,
  keptKbpsShare,
  sustainedS,
  busyS,
  busyEncodeShare,
  idleEncodeShare,
  peakWindowS,
  settleS,
  lossFreeS,
} = THRESHOLDS.cpu;

/**
 * The frame rate the encoder could send: what the camera delivers, or (SDKs that do not say) the stream's
 * peak since its first seconds; not guessed for a shared screen, whose rate follows its content.
 */
function expectedFps(stream: StreamView, sample: Sample): number | null {
  const captured = stream.value('captureFps', sample);
  if (captured) return captured;
  if (stream.meta.contentType === 'screenshare') return null;
  return stream.peak('fps', Math.min(peakWindowS, stream.age(sample) - settleS));
}

/** The encoder's time per frame as a share of the time a frame has at the rate it could send; null where the browser does not say. */
function encodeLoad(stream: StreamView, sample: Sample, expected: number): number | null {
  const ms = stream.value('encodeMs', sample);
  return ms === null ? null : ms / (1000 / expected);
}

/**
 * The frame rate stayed under `unexplainedFpsShare` of what it could be, and nothing on the network
 * explains it: what a browser starved of CPU shows without saying so (THRESHOLDS.cpu). Asked only of a
 * sample already under the share, so a healthy stream's samples scan no more of its past.
 */
function unexplainedDrop(stream: StreamView, sample: Sample, expected: number): boolean {
  if (stream.value('fps', sample) === 0 || stream.tally('lossPct', lossFreeS, (v) => v >= THRESHOLDS.lossPct[0]).passing > 0) return false;
  const under = (s: number) => stream.tally('fps', s, (v) => v < unexplainedFpsShare * expected).passing >= s - 1;
  // Each frame taking most of the time a frame has: the encoder itself cannot keep up, whatever the
  // network does — told from the first seconds, not after `sustainedS`.
  const load = encodeLoad(stream, sample, expected);
  if (load !== null && load >= busyEncodeShare) return under(busyS);
  // Another layer of the track at the camera's rate: the encoder has the CPU (a starved one slows every
  // layer), and this layer skips frames for its own reasons — paying back a burst of large frames after a
  // camera came back on (LiveKit: 1–3 fps for 3 s beside its 180p layer's 15).
  if (stream.layers.some((l) => (l.value('fps') ?? 0) >= unexplainedFpsShare * expected)) return false;
  if (stream.value('captureFps', sample) === null) {
    const kbps = stream.value('kbps', sample);
    const peakKbps = stream.peak('kbps', peakWindowS);
    if (kbps === null || !peakKbps || kbps < keptKbpsShare * peakKbps) return false;
  }
  return under(sustainedS);
}

/**
 * The sender's encoder held back by its CPU: as the browser reports it, or a sent frame rate fallen well
 * under what its camera delivers with nothing on the network to explain it; critical when it sends under
 * half of it.
 */
export const cpuLimitation: Detector = {
  type: 'cpu-limitation',
  category: 'endpoint',
  // Its level already asks for a drop held `sustainedS`, or the browser's word, which its encoder gives
  // only once its CPU has been overused for seconds and it has adapted: raised on it at once, a sender's
  // CPU is told within 5 s of onset (bench:diagnosis cpu-starved: 5.4 s with two samples in a row; 3.1 s
  // where the encoder's time per frame says so).
  raiseAfter: 1,
  check:
    "The sender's device: other programs using the CPU, power saving or thermal throttling, too many video streams for its CPU; a camera delivering fewer frames (low light).",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample, connection) {
      const limitation = stream.value('qualityLimitation', sample);
      if (limitation === null || stream.age(sample) < settleS) return null;
      // What the app's own settings hold it to is the app's (app-limit), not the CPU's.
      if (heldByApp(stream, sample)) return 0;
      // A browser that says bandwidth while it estimates room on its uplink has misread its own delay:
      // its CPU starved, it answers the far end's reports late (THRESHOLDS.cpu).
      if (limitation === BANDWIDTH && !connection?.hasRoom()) return 0;
      const fps = stream.value('fps', sample);
      const expected = expectedFps(stream, sample);
      const share = fps === null || !expected ? null : fps / expected;
      const critical = share !== null && share < criticalFpsShare;
      if (limitation === CPU) return critical ? 2 : 1;
      if (share === null) return null;
      // A shared screen's encoder drops frames for bandwidth without saying so (the lab's 300 kbit/s cap:
      // 1 fps of 15 sent, reason none): only the browser's word counts for it.
      if (share >= unexplainedFpsShare || stream.meta.contentType === 'screenshare') return 0;
      // Frames encoded as fast as ever: the encoder has its CPU, and what it leaves out is left for
      // another reason (a queue on its uplink before the browser says bandwidth, lab: a 300-kbit/s cap).
      const load = encodeLoad(stream, sample, expected!);
      if (load !== null && load < idleEncodeShare) return 0;
      return unexplainedDrop(stream, sample, expected!) ? (critical ? 2 : 1) : 0;
    },
    detail(stream, sample) {
      const fps = stream.value('fps', sample);
      const captured = stream.value('captureFps', sample);
      const expected = expectedFps(stream, sample);
      const reported = stream.value('qualityLimitation', sample) === CPU;
      const against = captured ? `of the ${captured.toFixed(0)} its camera delivers` : `down from ${expected?.toFixed(0)}`;
      const encodeMs = stream.value('encodeMs', sample);
      const encoding = encodeMs === null ? '' : `, ${encodeMs.toFixed(0)} ms to encode each frame`;
      return {
        evidence: {
          fps,
          captureFps: captured,
          expectedFps: expected,
          height: stream.value('height', sample),
          encodeMs,
          reportedByBrowser: reported ? 'yes' : 'no',
        },
        cause: reported
          ? `${stream.meta.participant}'s video encoder is limited by its CPU (${fps?.toFixed(0)} fps sent ${against}${encoding})`
          : `${stream.meta.participant} sends ${fps?.toFixed(0)} fps of video, ${against}${encoding}, with nothing on the network to explain it: its CPU holds it back`,
      };
    },
  },
};
