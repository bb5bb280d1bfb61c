import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector, NO_DETAIL } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';

const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');

/**
 * The sender held back by its network: the browser's encoder says bandwidth limits it once the call's
 * ramp-up is over; critical when it sends far under its own recent peak or the far end loses much.
 */
export const uplinkCongestion: Detector = {
  type: 'uplink-congestion',
  category: 'network',
  check: "The sender's uplink: its upload capacity, other uploads on the same link (backups, cloud sync), a congested Wi-Fi or VPN.",
  onStream(stream, sample) {
    if (stream.meta.direction !== 'out' || stream.meta.kind !== 'video') return null;
    const { rampUpS, peakWindowS, criticalShare, criticalRemoteLossPct } = THRESHOLDS.congestion;
    const limitation = stream.value('qualityLimitation', sample);
    const kbps = stream.value('kbps', sample);
    const remoteLossPct = stream.value('lossPct', sample);
    const peak = limitation === BANDWIDTH ? stream.peak('kbps', peakWindowS) : null;
    if (limitation === null || sample.ts - (stream.first ?? sample.ts) < rampUpS * 1000) return { subject: stream.subject, ts: sample.ts, level: null, detail: NO_DETAIL };
    const limited = limitation === BANDWIDTH;
    const severe = (kbps !== null && peak !== null && kbps < criticalShare * peak) || (remoteLossPct ?? 0) >= criticalRemoteLossPct;
    return {
      subject: stream.subject,
      ts: sample.ts,
      level: limited ? (severe ? 2 : 1) : 0,
      detail: () => ({
        evidence: { kbps, peakKbps: peak, remoteLossPct, rttMs: stream.value('rttMs', sample), qualityLimitation: QUALITY_LIMITATIONS[limitation] ?? null },
        cause: `${stream.meta.participant}'s video is limited by bandwidth: sending ${kbps?.toFixed(0)} kbit/s (peak ${peak?.toFixed(0)} in the last ${peakWindowS} s)`,
      }),
    };
  },
};
