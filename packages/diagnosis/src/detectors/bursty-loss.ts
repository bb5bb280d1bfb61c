import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

/**
 * Loss that comes in bursts: seconds of heavy loss between clean ones. Concealment cannot bridge it the
 * way it hides the same mean loss spread evenly, so it sounds and looks worse than its mean says.
 */
const { windowS, burstPct, burstSeconds, quietSeconds } = THRESHOLDS.burst;

export const burstyLoss: Detector = {
  type: 'bursty-loss',
  category: 'network',
  check: 'Interference or roaming on Wi-Fi, a link that drops in bursts (cellular handovers, a flapping route), buffers overflowing under cross traffic.',
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream) {
      const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
      if (known < windowS / 2) return null;
      if (bursts < burstSeconds) return 0;
      const quiet = stream.tally('lossPct', windowS, (l) => l < 1).passing;
      return quiet >= quietSeconds ? (bursts >= 2 * burstSeconds ? 2 : 1) : 0;
    },
    detail(stream) {
      const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
      const quiet = stream.tally('lossPct', windowS, (l) => l < 1).passing;
      return {
        evidence: { burstSeconds: bursts, quietSeconds: quiet, maxLossPct: stream.peak('lossPct', windowS) },
        cause: `${bursts} of the last ${known} s lost ${burstPct} % or more of the ${stream.meta.kind} packets to ${stream.meta.participant}, ${quiet} lost almost none`,
      };
    },
  },
};
