import { type Detector, levelOf, worse } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Level, Sample } from '../types.js';
import type { StreamView } from '../view.js';

/**
 * Loss that comes in bursts: seconds of heavy loss between clean ones, or, within a second, packets lost
 * in runs (audio concealed in long gaps, video's lost packets many to a NACK, or spread wider than chance). Concealment cannot bridge it the way it hides the same mean
 * loss spread evenly, so it sounds and looks worse than its mean says.
 */
const { windowS, burstPct, burstSeconds, quietSeconds, concealmentEventMs, dispersion, dispersionSeconds, crossings } = THRESHOLDS.burst;
const { nackWindowS, nackLost, nackSent, lostPerNack } = THRESHOLDS.burst;

export const burstyLoss: Detector = {
  type: 'bursty-loss',
  category: 'network',
  raiseAfter: THRESHOLDS.audioRaiseAfter,
  confirmedBy: (evidence) => typeof evidence.lostPerNack === 'number',
  check:
    'Interference or roaming on Wi-Fi, a link that drops in bursts (cellular handovers, a flapping route), buffers overflowing under cross traffic.',
  stream: {
    applies: (meta) => meta.direction === 'in',
    level(stream, sample) {
      return worse(worse(worse(burstySeconds(stream), concealedInRuns(stream, sample)), clustered(stream)), inRuns(stream));
    },
    confirmed: (stream) => !!inRuns(stream),
    detail(stream, sample) {
      const { known, passing: bursts } = stream.tally('lossPct', windowS, (l) => l >= burstPct);
      const quiet = stream.tally('lossPct', windowS, quietSecond).passing;
      const gapMs = stream.value('concealmentEventMs', sample);
      const runs = inRuns(stream) ? nackRuns(stream) : null;
      const evidence = {
        burstSeconds: bursts,
        quietSeconds: quiet,
        maxLossPct: stream.peak('lossPct', windowS),
        concealmentEventMs: gapMs,
        ...(runs && { lostPerNack: round(runs.lost / runs.nacks) }),
      };
      if (burstySeconds(stream)) {
        return {
          evidence,
          cause: `${bursts} of the last ${known} s lost ${burstPct} % or more of the ${stream.meta.kind} packets to ${stream.meta.participant}, ${quiet} lost almost none`,
        };
      }
      if (runs) {
        return {
          evidence: { ...evidence, lossPct: round(runs.lossPct) },
          cause: `the ${stream.meta.kind} packets to ${stream.meta.participant} are lost in runs: ${runs.lost} lost in the last ${nackWindowS} s (${runs.lossPct.toFixed(1)} %) for ${runs.nacks} NACKs, ${(runs.lost / runs.nacks).toFixed(1)} packets each (a lone lost packet takes a NACK of its own)`,
        };
      }
      const spread = lossSpread(stream);
      if (clustered(stream) && spread) {
        return {
          evidence: { ...evidence, lossPct: round(spread.lossPct), dispersion: round(spread.dispersion) },
          cause: `the ${stream.meta.kind} packets to ${stream.meta.participant} are lost in clusters: ${spread.lossPct.toFixed(1)} % over the last ${spread.seconds} s, its seconds spread ${spread.dispersion.toFixed(1)} times as widely as random loss would spread them`,
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
const round = (x: number) => Math.round(x * 10) / 10;

/** Scratch for one stream's lost and expected packets per second, newest first (no allocation per sample). */
const lostAt = new Float64Array(64);
const sentAt = new Float64Array(64);

/**
 * How the loss of the last `windowS` spreads over its seconds: over its lossy span (from the first second
 * that lost a packet to the last: an onset or an end is a step, not a cluster), the share lost, the index
 * of dispersion (the seconds' χ² against random loss at that share, over its k − 1 degrees of freedom: 1
 * for random loss) and how often a second's loss crosses that share. Null with too few seconds or packets.
 */
function lossSpread(stream: StreamView): { lossPct: number; dispersion: number; crossings: number; seconds: number } | null {
  let k = 0;
  stream.eachPair('packets', 'packetsLost', windowS, (received, lost) => {
    if (k >= lostAt.length) return;
    lostAt[k] = Math.max(0, lost);
    sentAt[k++] = received + Math.max(0, lost);
  });
  let [first, last] = [-1, -1];
  for (let i = 0; i < k; i++) {
    if (lostAt[i]! === 0) continue;
    if (first < 0) first = i;
    last = i;
  }
  const seconds = last - first + 1;
  if (first < 0 || seconds < dispersionSeconds) return null;
  let [lost, sent] = [0, 0];
  for (let i = first; i <= last; i++) [lost, sent] = [lost + lostAt[i]!, sent + sentAt[i]!];
  const p = lost / sent;
  if (!(p > 0 && p < 1)) return null;
  let [chi, crossed, side] = [0, 0, 0];
  for (let i = first; i <= last; i++) {
    const n = sentAt[i]!;
    if (n === 0) continue;
    chi += (lostAt[i]! - p * n) ** 2 / (n * p * (1 - p));
    const now = Math.sign(lostAt[i]! / n - p);
    if (now !== 0 && side !== 0 && now !== side) crossed++;
    if (now !== 0) side = now;
  }
  return { lossPct: p * 100, dispersion: chi / (seconds - 1), crossings: crossed, seconds };
}

/**
 * Loss clustered beyond chance, from the packet counts alone: enough lost, spread `dispersion` times as
 * widely as random loss would spread it, and coming and going (`crossings`: a level that steps once, 5 →
 * 20 %, spreads as widely). What a short burst of loss on a busy link does to the many packets of a video
 * stream, which a second's mean loss and its audio's gaps hide (lab, Gilbert–Elliott p 0.02, r 0.2: video
 * 9 % lost at a dispersion of 5.3 over 10 s, its audio's gaps 15–36 ms; 10 % random loss: 0.9–1.5).
 */
function clustered(stream: StreamView): Level {
  const spread = lossSpread(stream);
  if (!spread) return null;
  if (spread.lossPct < THRESHOLDS.lossPct[0] || spread.dispersion < dispersion || spread.crossings < crossings) return 0;
  return spread.lossPct >= THRESHOLDS.lossPct[1] ? 2 : 1;
}

/**
 * A stream's lost packets and the NACKs its receiver sent for them over the last `nackWindowS`, and whether
 * every sample of it lost some (loss that goes on, not one gap); null where it does not say NACKs.
 */
function nackRuns(stream: StreamView): { lost: number; nacks: number; lossPct: number; throughout: boolean } | null {
  let [lost, nacks, samples, lossy] = [0, 0, 0, 0];
  stream.eachPair('packetsLost', 'nack', nackWindowS, (l, n) => {
    lost += Math.max(0, l);
    nacks += n;
    samples++;
    if (l > 0) lossy++;
  });
  if (!samples) return null;
  let [received, counted] = [0, 0];
  stream.eachPair('packets', 'packetsLost', nackWindowS, (r, l) => {
    received += r;
    counted += Math.max(0, l);
  });
  const lossPct = received + counted > 0 ? (100 * counted) / (received + counted) : 0;
  return { lost, nacks, lossPct, throughout: samples >= 2 && lossy === samples };
}

/**
 * Packets lost in runs, as its receiver's NACKs tell (THRESHOLDS.burst): enough lost in every sample of
 * the window, at `lostPerNack` packets a NACK or more. One gap is not bursty loss (a LiveKit resume, ICE
 * restarted on the same connection, lost 10 packets for 3 NACKs at once). Audio asks for none (null); at a
 * long round trip a receiver repeats its NACKs, which lowers the ratio: bursts it then misses, random loss
 * it never takes for them.
 */
function inRuns(stream: StreamView): Level {
  if (stream.meta.kind !== 'video') return null;
  const runs = nackRuns(stream);
  if (!runs) return null;
  if (!runs.throughout || runs.lost < nackLost || runs.nacks < nackSent || runs.lost / runs.nacks < lostPerNack) return 0;
  if (runs.lossPct < THRESHOLDS.lossPct[0]) return 0;
  return runs.lossPct >= THRESHOLDS.lossPct[1] ? 2 : 1;
}

/** A second of heavy loss (true), a quiet one (false), or one in between (null). */
const burstOrQuiet = (lossPct: number) => (lossPct >= burstPct ? true : quietSecond(lossPct) ? false : null);

/**
 * Enough audio concealed in the second to matter, in long gaps on average, while packets were lost; null
 * where the SDK does not say. Gaps with nothing lost are packets that came late, or none sent (a real
 * recording's stream with contiguous sequence numbers and 0 lost was raised so): jitter's, not loss.
 */
function concealedInRuns(stream: StreamView, sample: Sample): Level {
  const concealed = stream.value('concealedPct', sample);
  if (concealed === null) return null;
  if (concealed < THRESHOLDS.concealedPct[0]) return 0;
  if (!((stream.peak('lossPct', nackWindowS) ?? 0) > 0)) return 0;
  return levelOf(stream.value('concealmentEventMs', sample), concealmentEventMs);
}
