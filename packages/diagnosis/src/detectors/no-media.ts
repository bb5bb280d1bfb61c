import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * A stream that carried media and now carries none, while its connection is up. A muted track sends
 * nothing on purpose: the engine leaves streams of a participant with a muted track of that kind alone.
 */
export const noMedia: Detector = {
  type: 'no-media',
  category: 'media',
  check: 'The track: stopped, replaced or disabled by the app, a camera or microphone taken by another program; for received media, the sender.',
  onStream(stream, sample) {
    const kbps = stream.value('kbps', sample);
    // Only a silent sample needs the stream's past (did it carry media?): most samples are spared it.
    const silent = kbps !== null && kbps < THRESHOLDS.noMediaKbps;
    const flowed = silent && (stream.peak('kbps', 60) ?? 0) > THRESHOLDS.noMediaKbps * 10;
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: kbps === null ? null : !silent ? 0 : flowed ? 2 : null,
      detail: () => ({ evidence: { kbps }, cause: `${stream.meta.participant}'s ${stream.meta.direction === 'out' ? 'sent' : 'received'} ${stream.meta.kind} stopped flowing` }),
    };
  },
};
