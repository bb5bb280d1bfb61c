import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');

/**
 * The sender held back by its network: the browser's encoder says bandwidth limits it once the call's
 * ramp-up is over; critical when it sends far under its own recent peak or the far end loses much.
 */
const { rampUpS, peakWindowS, criticalShare, criticalRemoteLossPct } = THRESHOLDS.congestion;

export const uplinkCongestion: Detector = {
  type: 'uplink-congestion',
  category: 'network',
  check: "The sender's uplink: its upload capacity, other uploads on the same link (backups, cloud sync), a congested Wi-Fi or VPN.",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample) {
      const limitation = stream.value('qualityLimitation', sample);
      if (limitation === null || sample.ts - (stream.first ?? sample.ts) < rampUpS * 1000) return null;
      if (limitation !== BANDWIDTH) return 0;
      const kbps = stream.value('kbps', sample);
      const peak = stream.peak('kbps', peakWindowS);
      const severe = (kbps !== null && peak !== null && kbps < criticalShare * peak) || (stream.value('lossPct', sample) ?? 0) >= criticalRemoteLossPct;
      return severe ? 2 : 1;
    },
    detail(stream, sample) {
      const [kbps, peak, limitation] = [stream.value('kbps', sample), stream.peak('kbps', peakWindowS), stream.value('qualityLimitation', sample)];
      return {
        evidence: { kbps, peakKbps: peak, remoteLossPct: stream.value('lossPct', sample), rttMs: stream.value('rttMs', sample), qualityLimitation: limitation === null ? null : (QUALITY_LIMITATIONS[limitation] ?? null) },
        cause: `${stream.meta.participant}'s video is limited by bandwidth: sending ${kbps?.toFixed(0)} kbit/s (peak ${peak?.toFixed(0)} in the last ${peakWindowS} s)`,
      };
    },
  },
};
