import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** Received audio the receiver had to make up (packet-loss concealment): what the listener hears as gaps and robotic sound. */
export const audioConcealment: Detector = {
  type: 'audio-concealment',
  category: 'endpoint',
  raiseAfter: THRESHOLDS.audioRaiseAfter,
  check:
    "Loss and jitter on the way to the listener (see its network issues); without those, the listener's device: CPU load, audio drivers.",
  stream: {
    applies: (meta) => meta.direction === 'in' && meta.kind === 'audio',
    level(stream, sample) {
      return levelOf(stream.value('concealedPct', sample), THRESHOLDS.concealedPct);
    },
    detail(stream, sample) {
      const concealedPct = stream.value('concealedPct', sample);
      return {
        evidence: { concealedPct, lossPct: stream.value('lossPct', sample) },
        cause: `${concealedPct?.toFixed(1)} % of the audio ${stream.meta.participant} hears is concealed (made up by its browser)`,
      };
    },
  },
};
