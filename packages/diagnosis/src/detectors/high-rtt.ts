import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/** A round trip long enough to be heard as talking over each other, from the selected candidate pair. */
export const highRtt: Detector = {
  type: 'high-rtt',
  category: 'network',
  check:
    'The path between the participants: a distant relay or region, a VPN, queues filling on a congested link (the RTT rises with the load).',
  raiseAfter: THRESHOLDS.rttRaiseAfter,
  onConnection(connection, sample) {
    const rttMs = connection.value('rttMs');
    return {
      subject: { participant: connection.meta.participant, streamId: null, connectionId: connection.meta.id, direction: null },
      ts: sample.ts,
      level: levelOf(rttMs, THRESHOLDS.rttMs),
      detail: () => ({ evidence: { rttMs }, cause: `round trip of ${rttMs?.toFixed(0)} ms from ${connection.meta.participant}` }),
    };
  },
};
