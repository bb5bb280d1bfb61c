import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { StreamView } from '../view.js';

/** The time a sample covers, ms: the stream's sampling interval (a recording's may be 10 s), a second before its second sample. */
const intervalOf = (stream: StreamView) => stream.interval ?? 1000;

/** Frozen for half the interval by the browser's own count. */
const counted = (stream: StreamView, freezeMs: number | null) =>
  freezeMs !== null && freezeMs >= THRESHOLDS.frozenShare * intervalOf(stream);
/** Received video that stops moving: the browser counted a freeze, or the frame rate fell under 2 fps after it had moved at 10 fps or more within the last 30 s. */
const stalled = (stream: StreamView, fps: number | null, freezeMs: number | null) =>
  counted(stream, freezeMs) ||
  (fps !== null && fps < THRESHOLDS.freeze.fps && (stream.peak('fps', THRESHOLDS.freeze.windowS) ?? 0) >= THRESHOLDS.freeze.flowingFps);

export const videoFreeze: Detector = {
  type: 'video-freeze',
  category: 'endpoint',
  check: "Loss or a stalled sender upstream (see the sender's issues); the receiver's decoder (CPU) if the frames arrive.",
  stream: {
    // A shared screen sends frames as its content changes: a still page, a frame or two a second, which
    // the browser's freeze count reads as freezes. Its trouble shows as received-quality and loss.
    applies: (meta) => meta.direction === 'in' && meta.kind === 'video' && meta.contentType !== 'screenshare',
    level(stream, sample) {
      const fps = stream.value('fps', sample);
      const freezes = stream.value('freezes', sample);
      const freezeMs = stream.value('freezeMs', sample);
      if (fps === null && freezes === null && freezeMs === null) return null;
      if (stream.age(sample) < THRESHOLDS.freeze.settleS) return null;
      return stalled(stream, fps, freezeMs) ? 2 : (freezes ?? 0) > 0 || (freezeMs ?? 0) > 0 ? 1 : 0;
    },
    detail(stream, sample) {
      const fps = stream.value('fps', sample);
      const freezes = stream.value('freezes', sample);
      const freezeMs = stream.value('freezeMs', sample);
      // Said by what showed it: a frame rate that fell is not "frozen 0.0 s" by the browser's count, and
      // a freeze the browser counts when it ends may have begun before the interval (2 s of the last second).
      const interval = intervalOf(stream);
      const last = interval > 1500 ? `the last ${(interval / 1000).toFixed(0)} s` : 'the last second';
      const still = counted(stream, freezeMs)
        ? `${freezeMs! > interval ? `a freeze of ${(freezeMs! / 1000).toFixed(1)} s ended in ${last}` : `frozen ${(freezeMs! / 1000).toFixed(1)} s of ${last}`}, ${fps?.toFixed(1) ?? '?'} fps`
        : `${fps?.toFixed(1) ?? '?'} fps, down from ${stream.peak('fps', THRESHOLDS.freeze.windowS)?.toFixed(0) ?? '?'} within the last ${THRESHOLDS.freeze.windowS} s`;
      return {
        evidence: { fps, freezes, freezeMs },
        cause: stalled(stream, fps, freezeMs)
          ? `video to ${stream.meta.participant} stands still (${still})`
          : `video to ${stream.meta.participant} froze ${freezes ?? 1} time(s)`,
      };
    },
  },
};
