import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * A stream that carried media and now carries none, while its connection is up; or a sent stream whose
 * local track was stopped, whatever its sender goes on sending (Firefox sends a frame a second of a
 * stopped track). A muted track sends nothing on purpose: the engine leaves streams of a participant with
 * a muted track of that kind alone.
 */
export const noMedia: Detector = {
  type: 'no-media',
  category: 'media',
  check:
    'The track: stopped, replaced or disabled by the app, a camera or microphone taken by another program; for received media, the sender.',
  stream: {
    applies: () => true,
    level(stream, sample) {
      if (stream.trackStopped) return 2;
      const kbps = stream.value('kbps', sample);
      if (kbps === null) return null;
      if (kbps >= THRESHOLDS.noMediaKbps) return 0;
      // Only a silent sample needs the stream's past (did it carry media?): most samples are spared it.
      return (stream.peak('kbps', 60) ?? 0) > THRESHOLDS.noMediaKbps * 10 ? 2 : null;
    },
    detail(stream, sample) {
      const { participant, direction, kind } = stream.meta;
      return {
        evidence: { kbps: stream.value('kbps', sample), trackStopped: stream.trackStopped ? 1 : 0 },
        cause: stream.trackStopped
          ? `${participant}'s ${kind} track was stopped (by the app, or its device went away): it sends nothing of it`
          : `${participant}'s ${direction === 'out' ? 'sent' : 'received'} ${kind} stopped flowing`,
      };
    },
  },
};
