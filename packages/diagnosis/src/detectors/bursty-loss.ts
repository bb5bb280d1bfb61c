import { type Detector, NO_DETAIL, type Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * Loss that comes in bursts: seconds of heavy loss between clean ones. Concealment cannot bridge it the
 * way it hides the same mean loss spread evenly, so it sounds and looks worse than its mean says.
 */
export const burstyLoss: Detector = {
  type: 'bursty-loss',
  category: 'network',
  check: 'Interference or roaming on Wi-Fi, a link that drops in bursts (cellular handovers, a flapping route), buffers overflowing under cross traffic.',
  onStream(stream, sample): Observation | null {
    if (stream.meta.direction !== 'in') return null;
    const { windowS, burstPct, burstSeconds, quietSeconds } = THRESHOLDS.burst;
    const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
    if (known < windowS / 2) return { subject: stream.subject, ts: sample.ts, level: null, detail: NO_DETAIL };
    const quiet = bursts >= burstSeconds ? stream.tally('lossPct', windowS, (l) => l < 1).passing : 0;
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: bursts >= burstSeconds && quiet >= quietSeconds ? (bursts >= 2 * burstSeconds ? 2 : 1) : 0,
      detail: () => ({ evidence: { burstSeconds: bursts, quietSeconds: quiet, maxLossPct: stream.peak('lossPct', windowS) }, cause: `${bursts} of the last ${known} s lost ${burstPct} % or more of the ${stream.meta.kind} packets to ${stream.meta.participant}, ${quiet} lost almost none` }),
    };
  },
};
