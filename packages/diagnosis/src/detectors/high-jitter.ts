import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * Packets arriving unevenly: the jitter buffer grows (delay) or runs dry (gaps). Told by the reported
 * jitter; the buffer's own delay is evidence, not the test: it also grows with the RTT (video waits for
 * retransmissions, and audio is held with it for lip sync: 320 ms in the lab under 300 ms of added delay
 * and no jitter).
 */
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
      const jitterBufferMs = stream.value('jitterBufferMs', sample);
      const buffer = jitterBufferMs === null ? '' : `, held ${jitterBufferMs.toFixed(0)} ms in the jitter buffer`;
      return { evidence: { jitterMs, jitterBufferMs }, cause: `${stream.meta.kind} to ${stream.meta.participant} arrives with ${jitterMs?.toFixed(0) ?? '?'} ms of jitter${buffer}` };
    },
  },
};
