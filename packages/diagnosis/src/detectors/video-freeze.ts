import { type Detector, NO_DETAIL, type Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** Received video that stops moving: the browser counted a freeze, or the frame rate fell to almost nothing. */
export const videoFreeze: Detector = {
  type: 'video-freeze',
  category: 'endpoint',
  check: "Loss or a stalled sender upstream (see the sender's issues); the receiver's decoder (CPU) if the frames arrive.",
  onStream(stream, sample): Observation | null {
    if (stream.meta.direction !== 'in' || stream.meta.kind !== 'video') return null;
    const fps = stream.value('fps', sample);
    const freezes = stream.value('freezes', sample);
    if (fps === null && freezes === null) return { subject: stream.subject, ts: sample.ts, level: null, detail: NO_DETAIL };
    const stalled = fps !== null && fps < THRESHOLDS.freeze.fps && (stream.peak('fps', THRESHOLDS.freeze.windowS) ?? 0) >= THRESHOLDS.freeze.flowingFps;
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: stalled ? 2 : (freezes ?? 0) > 0 ? 1 : 0,
      detail: () => ({ evidence: { fps, freezes }, cause: stalled ? `video to ${stream.meta.participant} stands still (${fps?.toFixed(1)} fps)` : `video to ${stream.meta.participant} froze ${freezes} time(s)` }),
    };
  },
};
