import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { StreamView } from '../view.js';

const CPU = QUALITY_LIMITATIONS.indexOf('cpu');
const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');

/**
 * The frame rate fell (to `share` of its peak) and stayed down while the bits still flow and nothing says
 * bandwidth: what a browser starved of CPU shows without saying so (THRESHOLDS.cpu). Asked only of a
 * sample already under the share, so a healthy stream's samples scan no more of its past.
 */
function unexplainedDrop(stream: StreamView, sample: Sample, fps: number, peakFps: number): boolean {
  const { keptKbpsShare, sustainedS, peakWindowS, unexplainedFpsShare } = THRESHOLDS.cpu;
  const kbps = stream.value('kbps', sample);
  const peakKbps = stream.peak('kbps', peakWindowS);
  if (fps === 0 || kbps === null || !peakKbps || kbps < keptKbpsShare * peakKbps) return false;
  return stream.tally('fps', sustainedS, (v) => v < unexplainedFpsShare * peakFps).passing >= sustainedS - 1;
}

/**
 * The sender's encoder held back by its CPU: as the browser reports it, or a sent frame rate fallen well
 * under its peak with no bandwidth limitation to explain it; critical when the frame rate falls by half.
 */
export const cpuLimitation: Detector = {
  type: 'cpu-limitation',
  category: 'endpoint',
  check: "The sender's device: other programs using the CPU, power saving or thermal throttling, too many video streams for its CPU; a camera delivering fewer frames (low light).",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample) {
      const limitation = stream.value('qualityLimitation', sample);
      if (limitation === null) return null;
      if (limitation === BANDWIDTH) return 0;
      const fps = stream.value('fps', sample);
      const peakFps = stream.peak('fps', THRESHOLDS.cpu.peakWindowS);
      const share = fps === null || !peakFps ? null : fps / peakFps;
      const critical = share !== null && share < THRESHOLDS.cpu.criticalFpsShare;
      if (limitation === CPU) return critical ? 2 : 1;
      if (share === null) return null;
      if (share >= THRESHOLDS.cpu.unexplainedFpsShare) return 0;
      return unexplainedDrop(stream, sample, fps!, peakFps!) ? (critical ? 2 : 1) : 0;
    },
    detail(stream, sample) {
      const fps = stream.value('fps', sample);
      const peakFps = stream.peak('fps', THRESHOLDS.cpu.peakWindowS);
      const reported = stream.value('qualityLimitation', sample) === CPU;
      return {
        evidence: { fps, peakFps, height: stream.value('height', sample), reportedByBrowser: reported ? 'yes' : 'no' },
        cause: reported
          ? `${stream.meta.participant}'s video encoder is limited by its CPU (${fps?.toFixed(0)} fps sent)`
          : `${stream.meta.participant} sends ${fps?.toFixed(0)} fps of video, down from ${peakFps?.toFixed(0)}, with no bandwidth limit to explain it: its CPU (or its camera) holds it back`,
      };
    },
  },
};
