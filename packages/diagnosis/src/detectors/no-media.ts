import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * A stream that carried media and now carries none, while its connection is up. A muted track sends
 * nothing on purpose: the engine leaves streams of a participant with a muted track of that kind alone.
 */
export const noMedia: Detector = {
  type: 'no-media',
  category: 'media',
  check:
    'The track: stopped, replaced or disabled by the app, a camera or microphone taken by another program; for received media, the sender.',
  stream: {
    applies: () => true,
    level(stream, sample) {
      const kbps = stream.value('kbps', sample);
      if (kbps === null) return null;
      if (kbps >= THRESHOLDS.noMediaKbps) return 0;
      // Only a silent sample needs the stream's past (did it carry media?): most samples are spared it.
      return (stream.peak('kbps', 60) ?? 0) > THRESHOLDS.noMediaKbps * 10 ? 2 : null;
    },
    detail(stream, sample) {
      return {
        evidence: { kbps: stream.value('kbps', sample) },
        cause: `${stream.meta.participant}'s ${stream.meta.direction === 'out' ? 'sent' : 'received'} ${stream.meta.kind} stopped flowing`,
      };
    },
  },
};
