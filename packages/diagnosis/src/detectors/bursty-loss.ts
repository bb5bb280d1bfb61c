import { type Detector, type Observation, streamSubject } from '../detector.js';
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
    const loss = stream.values('lossPct', windowS);
    if (loss.length < windowS / 2) return { subject: streamSubject(stream), ts: sample.ts, level: null, evidence: {}, cause: '' };
    const bursts = loss.filter((l) => l >= burstPct).length;
    const quiet = loss.filter((l) => l < 1).length;
    return {
      subject: streamSubject(stream),
      ts: sample.ts,
      level: bursts >= burstSeconds && quiet >= quietSeconds ? (bursts >= 2 * burstSeconds ? 2 : 1) : 0,
      evidence: { burstSeconds: bursts, quietSeconds: quiet, maxLossPct: Math.max(...loss) },
      cause: `${bursts} of the last ${loss.length} s lost ${burstPct} % or more of the ${stream.meta.kind} packets to ${stream.meta.participant}, ${quiet} lost almost none`,
    };
  },
};
