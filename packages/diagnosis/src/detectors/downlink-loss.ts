import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** Packets lost on their way to this participant: the loss its received streams report. */
export const downlinkLoss: Detector = {
  type: 'downlink-loss',
  category: 'network',
  check:
    "The receiver's network: Wi-Fi signal, a congested or lossy access link, a VPN; other receivers of the same sender tell whether it is the sender's side.",
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      return levelOf(stream.value('lossPct', sample), THRESHOLDS.lossPct);
    },
    detail(stream, sample) {
      const lossPct = stream.value('lossPct', sample);
      return {
        evidence: { lossPct, packetsLost: stream.value('packetsLost', sample) },
        cause: `${lossPct?.toFixed(1)} % of the ${stream.meta.kind} packets sent to ${stream.meta.participant} are lost`,
      };
    },
  },
};
