import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

const CPU = QUALITY_LIMITATIONS.indexOf('cpu');

/** The sender's encoder held back by its CPU, as the browser reports it; critical when the frame rate falls by half. */
export const cpuLimitation: Detector = {
  type: 'cpu-limitation',
  category: 'endpoint',
  check: "The sender's device: other programs using the CPU, power saving or thermal throttling, too many video streams for its CPU.",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample) {
      const limitation = stream.value('qualityLimitation', sample);
      if (limitation === null) return null;
      if (limitation !== CPU) return 0;
      const fps = stream.value('fps', sample);
      const peak = stream.peak('fps', THRESHOLDS.cpu.peakWindowS);
      return fps !== null && peak !== null && fps < THRESHOLDS.cpu.criticalFpsShare * peak ? 2 : 1;
    },
    detail(stream, sample) {
      const fps = stream.value('fps', sample);
      return {
        evidence: { fps, peakFps: stream.peak('fps', THRESHOLDS.cpu.peakWindowS), height: stream.value('height', sample) },
        cause: `${stream.meta.participant}'s video encoder is limited by its CPU (${fps?.toFixed(0)} fps sent)`,
      };
    },
  },
};
