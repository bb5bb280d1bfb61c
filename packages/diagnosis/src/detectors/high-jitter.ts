import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** Packets arriving unevenly: the jitter buffer grows (delay) or runs dry (gaps). */
export const highJitter: Detector = {
  type: 'high-jitter',
  category: 'network',
  check: "The receiver's network: Wi-Fi contention, uploads or downloads sharing the link, a mobile connection.",
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      return levelOf(stream.value('jitterMs', sample), THRESHOLDS.jitterMs);
    },
    detail(stream, sample) {
      const jitterMs = stream.value('jitterMs', sample);
      return { evidence: { jitterMs }, cause: `${stream.meta.kind} to ${stream.meta.participant} arrives with ${jitterMs?.toFixed(0)} ms of jitter` };
    },
  },
};
