import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { StreamView } from '../view.js';

const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');

const { rampUpS, rampUpPerDoublingS, peakWindowS, criticalShare, keptShare, heldS, criticalRemoteLossPct, queueMs, overflowWindowS, risingShare, risingWindowS } = THRESHOLDS.congestion;

/** How long the sender's ramp-up lasts: longer for a larger picture, which needs a higher rate. */
function rampUpOf(stream: StreamView, sample: Sample): number {
  const height = stream.value('height', sample);
  return rampUpS + (height !== null && height > 360 ? rampUpPerDoublingS * Math.log2(height / 360) : 0);
}

/** The sender's rate still climbing to what its path carries: its mean over the last half of `risingWindowS` well over its mean over the whole. */
function climbing(stream: StreamView): boolean {
  const [recent, longer] = [stream.mean('kbps', risingWindowS / 2), stream.mean('kbps', risingWindowS)];
  return recent !== null && longer !== null && recent >= risingShare * longer;
}

/**
 * A queue overflowing on the sender's path: the far end lost much in the last few seconds (its reports
 * come about once a second, each on the packets since the one before) while the RTT stands well over its
 * lowest (THRESHOLDS.congestion).
 */
function overflowing(stream: StreamView, sample: Sample): boolean {
  const [lossPct, rttMs] = [stream.peak('lossPct', overflowWindowS), stream.value('rttMs', sample)];
  const lowest = stream.low('rttMs', peakWindowS);
  return lossPct !== null && rttMs !== null && lowest !== null && lossPct >= criticalRemoteLossPct && rttMs - lowest >= queueMs;
}

/**
 * The sender held back by its network once the call's ramp-up is over: the browser's encoder says
 * bandwidth limits it while its rate no longer climbs, or before it does, the queue on its path
 * overflows; critical when it sends far under its own recent peak or the far end loses much.
 */
export const uplinkCongestion: Detector = {
  type: 'uplink-congestion',
  category: 'network',
  check: "The sender's uplink: its upload capacity, other uploads on the same link (backups, cloud sync), a congested Wi-Fi or VPN.",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample) {
      const limitation = stream.value('qualityLimitation', sample);
      if (limitation === null || stream.age(sample) < rampUpOf(stream, sample)) return null;
      const overflow = overflowing(stream, sample);
      if (limitation !== BANDWIDTH && !overflow) return 0;
      if (!overflow && climbing(stream)) return null;
      const kbps = stream.value('kbps', sample);
      const peak = stream.peak('kbps', peakWindowS);
      const severe = (kbps !== null && peak !== null && kbps < criticalShare * peak) || (stream.value('lossPct', sample) ?? 0) >= criticalRemoteLossPct;
      if (severe) return 2;
      // Limited, but sending near its own peak (or dipping under it only briefly): the browser's estimate holds it where it was, no one notices.
      const recent = stream.mean('kbps', heldS);
      const held = overflow || (recent !== null && peak !== null && recent < keptShare * peak);
      return held ? 1 : 0;
    },
    detail(stream, sample) {
      const [kbps, peak, limitation] = [stream.value('kbps', sample), stream.peak('kbps', peakWindowS), stream.value('qualityLimitation', sample)];
      const [lossPct, rttMs, lowestRttMs] = [stream.peak('lossPct', overflowWindowS), stream.value('rttMs', sample), stream.low('rttMs', peakWindowS)];
      const evidence = { kbps, peakKbps: peak, remoteLossPct: lossPct, rttMs, lowestRttMs, qualityLimitation: limitation === null ? null : (QUALITY_LIMITATIONS[limitation] ?? null) };
      return {
        evidence,
        cause:
          limitation === BANDWIDTH
            ? `${stream.meta.participant}'s video is limited by bandwidth: sending ${kbps?.toFixed(0)} kbit/s (peak ${peak?.toFixed(0)} in the last ${peakWindowS} s)`
            : `${stream.meta.participant}'s uplink is overflowing: ${lossPct?.toFixed(0)} % of its video lost on the way, its RTT up from ${lowestRttMs?.toFixed(0)} to ${rttMs?.toFixed(0)} ms`,
      };
    },
  },
};
