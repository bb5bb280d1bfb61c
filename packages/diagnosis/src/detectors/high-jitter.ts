import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** Packets arriving unevenly: the jitter buffer grows (delay) or runs dry (gaps). */
export const highJitter: Detector = {
  type: 'high-jitter',
  category: 'network',
  check: "The receiver's network: Wi-Fi contention, uploads or downloads sharing the link, a mobile connection.",
  onStream(stream, sample) {
    if (stream.meta.direction !== 'in') return null;
    const jitterMs = stream.value('jitterMs', sample);
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: levelOf(jitterMs, THRESHOLDS.jitterMs),
      detail: () => ({ evidence: { jitterMs }, cause: `${stream.meta.kind} to ${stream.meta.participant} arrives with ${jitterMs?.toFixed(0)} ms of jitter` }),
    };
  },
};
