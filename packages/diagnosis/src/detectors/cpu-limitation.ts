import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

const CPU = QUALITY_LIMITATIONS.indexOf('cpu');

/** The sender's encoder held back by its CPU, as the browser reports it; critical when the frame rate falls by half. */
export const cpuLimitation: Detector = {
  type: 'cpu-limitation',
  category: 'endpoint',
  check: "The sender's device: other programs using the CPU, power saving or thermal throttling, too many video streams for its CPU.",
  onStream(stream, sample) {
    if (stream.meta.direction !== 'out' || stream.meta.kind !== 'video') return null;
    const limitation = stream.value('qualityLimitation', sample);
    const fps = stream.value('fps', sample);
    const peak = limitation === CPU ? stream.peak('fps', THRESHOLDS.cpu.peakWindowS) : null;
    const severe = fps !== null && peak !== null && fps < THRESHOLDS.cpu.criticalFpsShare * peak;
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: limitation === null ? null : limitation === CPU ? (severe ? 2 : 1) : 0,
      detail: () => ({ evidence: { fps, peakFps: peak, height: stream.value('height', sample) }, cause: `${stream.meta.participant}'s video encoder is limited by its CPU (${fps?.toFixed(0)} fps sent)` }),
    };
  },
};
