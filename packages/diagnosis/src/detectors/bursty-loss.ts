import { type Detector, levelOf, worse } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Level, Sample } from '../types.js';
import type { StreamView } from '../view.js';

/**
 * Loss that comes in bursts: seconds of heavy loss between clean ones, or, within a second, packets lost
 * in runs (audio concealed in long gaps). Concealment cannot bridge it the way it hides the same mean
 * loss spread evenly, so it sounds and looks worse than its mean says.
 */
const { windowS, burstPct, burstSeconds, quietSeconds, concealmentEventMs } = THRESHOLDS.burst;

export const burstyLoss: Detector = {
  type: 'bursty-loss',
  category: 'network',
  raiseAfter: THRESHOLDS.audioRaiseAfter,
  check:
    'Interference or roaming on Wi-Fi, a link that drops in bursts (cellular handovers, a flapping route), buffers overflowing under cross traffic.',
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      return worse(burstySeconds(stream), concealedInRuns(stream, sample));
    },
    detail(stream, sample) {
      const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
      const quiet = stream.tally('lossPct', windowS, quietSecond).passing;
      const gapMs = stream.value('concealmentEventMs', sample);
      const evidence = {
        burstSeconds: bursts,
        quietSeconds: quiet,
        maxLossPct: stream.peak('lossPct', windowS),
        concealmentEventMs: gapMs,
      };
      if (burstySeconds(stream)) {
        return {
          evidence,
          cause: `${bursts} of the last ${known} s lost ${burstPct} % or more of the ${stream.meta.kind} packets to ${stream.meta.participant}, ${quiet} lost almost none`,
        };
      }
      return {
        evidence,
        cause: `the audio ${stream.meta.participant} hears is lost in runs of packets: its gaps last ${gapMs?.toFixed(0)} ms on average (a single lost packet makes one of ~20 ms)`,
      };
    },
  },
};

/**
 * Seconds of heavy loss between clean ones, over the last `windowS`; null with too few seconds known.
 * The loss has to come and go: steady loss that began or ended inside the window is one change from
 * clean to lossy (or back), not a burst (a Janus subscriber's 10 % random loss read as bursty for the
 * 10 s after it ended).
 */
function burstySeconds(stream: StreamView): Level {
  const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
  if (known < windowS / 2) return null;
  if (bursts < burstSeconds) return 0;
  const quiet = stream.tally('lossPct', windowS, quietSecond).passing;
  if (quiet < quietSeconds || stream.changes('lossPct', windowS, burstOrQuiet) < 2) return 0;
  return bursts >= 2 * burstSeconds ? 2 : 1;
}

const quietSecond = (lossPct: number) => lossPct < 1;

/** A second of heavy loss (true), a quiet one (false), or one in between (null). */
const burstOrQuiet = (lossPct: number) => (lossPct >= burstPct ? true : quietSecond(lossPct) ? false : null);

/** Enough audio concealed in the second to matter, in long gaps on average; null where the SDK does not say. */
function concealedInRuns(stream: StreamView, sample: Sample): Level {
  const concealed = stream.value('concealedPct', sample);
  if (concealed === null) return null;
  return concealed < THRESHOLDS.concealedPct[0] ? 0 : levelOf(stream.value('concealmentEventMs', sample), concealmentEventMs);
}
