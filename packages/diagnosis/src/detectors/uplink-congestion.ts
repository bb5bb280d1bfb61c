import { QUALITY_LIMITATIONS } from '@rtcscope/protocol';
import { type Detector } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Sample } from '../types.js';
import type { ConnectionView, StreamView } from '../view.js';

const BANDWIDTH = QUALITY_LIMITATIONS.indexOf('bandwidth');

const {
  rampUpS,
  rampUpPerDoublingS,
  peakWindowS,
  criticalShare,
  keptShare,
  heldS,
  criticalRemoteLossPct,
  queueMs,
  queueWindowS,
  overflowWindowS,
  recentLossWindowS,
  risingShare,
  risingWindowS,
  screenUsedShare,
  starvedFps,
} = THRESHOLDS.congestion;
const { unexplainedFpsShare, criticalFpsShare } = THRESHOLDS.cpu;
const [lossyPct] = THRESHOLDS.lossPct;

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

const heavyLoss = (lossPct: number) => lossPct >= criticalRemoteLossPct;

/**
 * A sender the browser limits for bandwidth that sends under half the frames its camera gives (or, where
 * the camera's rate is not known, under `starvedFps`) over the last `heldS`: a picture no one wants to
 * watch, however flat its rate since the start (a real recording's camera sent 1 fps at 320×180,
 * bandwidth-limited for the whole call, and no peak to fall from).
 */
function starved(stream: StreamView, sample: Sample): boolean {
  const [fps, captured] = [stream.mean('fps', heldS), stream.value('captureFps', sample)];
  if (fps === null) return false;
  return captured ? fps < criticalFpsShare * captured : fps < starvedFps;
}

/**
 * A queue overflowing on the sender's path: the RTT stands well over its lowest of the last `queueWindowS`
 * (a queue filling now, not a path that got longer a while ago) while the far end lost much in two of its
 * reports of the last few seconds (they come about once a second, each on the packets since the one
 * before; one alone can be a miscount), or in one while the sender answers it as a congested sender does:
 * the browser's own estimate of its uplink fallen under what the connection sends, or its rate cut under
 * `keptShare` of its peak of the same seconds (THRESHOLDS.congestion).
 */
function overflowing(stream: StreamView, sample: Sample, connection: ConnectionView | undefined): boolean {
  const rttMs = stream.value('rttMs', sample);
  const lowest = stream.low('rttMs', queueWindowS);
  if (rttMs === null || lowest === null || rttMs - lowest < queueMs) return false;
  const heavyReports = stream.tally('lossPct', overflowWindowS, heavyLoss).passing;
  if (heavyReports >= 2) return true;
  if (heavyReports === 0) return false;
  const [kbps, recentPeak] = [stream.value('kbps', sample), stream.peak('kbps', queueWindowS)];
  const rateCut = kbps !== null && recentPeak !== null && kbps < keptShare * recentPeak;
  return rateCut || (connection?.estimateUsed() ?? 0) > 1;
}

/**
 * A shared screen's encoder drops frames for bandwidth without saying so (THRESHOLDS.congestion): held
 * back while its connection sends what the browser estimates it carries and it sends fewer frames than it
 * captures. At its estimate with every frame sent, it cannot tell (a clean page's scroll, GCC's estimate
 * dipping under it, lost nothing): the issue neither opens nor closes on that.
 */
function screenLevel(stream: StreamView, sample: Sample, connection: ConnectionView | undefined): 0 | 1 | 2 | null {
  if ((connection?.estimateUsed() ?? 0) < screenUsedShare) return 0;
  const [fps, captured] = [stream.value('fps', sample), stream.value('captureFps', sample)];
  if (fps === null || !captured || fps >= unexplainedFpsShare * captured) return null;
  return fps < criticalFpsShare * captured || (stream.value('lossPct', sample) ?? 0) >= criticalRemoteLossPct ? 2 : 1;
}

/**
 * A browser that never says what limits its encoder (Firefox): held back by its uplink while it sends
 * fewer frames than it captures, the far end loses part of them in most of its recent reports, and a
 * queue stands on the path (its RTT `queueMs` over its lowest of the last `peakWindowS`). THRESHOLDS.congestion.
 */
function queuedLevel(stream: StreamView, sample: Sample): 0 | 1 | 2 {
  const [fps, captured, rttMs, lowest] = [
    stream.value('fps', sample),
    stream.value('captureFps', sample),
    stream.value('rttMs', sample),
    stream.low('rttMs', peakWindowS),
  ];
  const lossy = stream.tally('lossPct', recentLossWindowS, (v) => v >= lossyPct);
  const queued = rttMs !== null && lowest !== null && rttMs - lowest >= queueMs && lossy.known > 0 && lossy.passing * 2 >= lossy.known;
  // Nothing else known to hold it back: what it does not say is no issue, and one raised before clears.
  if (!queued || fps === null || !captured || fps >= unexplainedFpsShare * captured) return 0;
  return fps < criticalFpsShare * captured || (stream.mean('lossPct', recentLossWindowS) ?? 0) >= criticalRemoteLossPct ? 2 : 1;
}

/**
 * The sender held back by its network once the call's ramp-up is over: the browser's encoder says
 * bandwidth limits it while its rate no longer climbs, or before it does, the queue on its path
 * overflows; critical when it sends far under its own recent peak or the far end loses much. A shared
 * screen, whose encoder does not say it, by its connection's estimate (screenLevel).
 */
export const uplinkCongestion: Detector = {
  type: 'uplink-congestion',
  category: 'network',
  check: "The sender's uplink: its upload capacity, other uploads on the same link (backups, cloud sync), a congested Wi-Fi or VPN.",
  stream: {
    applies: (meta) => meta.direction === 'out' && meta.kind === 'video',
    level(stream, sample, connection) {
      const limitation = stream.value('qualityLimitation', sample);
      const overflow = overflowing(stream, sample, connection);
      // Ramping up, the browser's word and a rate under its peak say nothing yet; a queue that overflows does.
      if (stream.age(sample) < rampUpOf(stream, sample) && !overflow) return null;
      if (limitation === null && !overflow) return queuedLevel(stream, sample);
      if (limitation !== BANDWIDTH && !overflow)
        return stream.meta.contentType === 'screenshare' ? screenLevel(stream, sample, connection) : 0;
      if (!overflow && connection?.hasRoom()) return 0;
      if (!overflow && climbing(stream)) return null;
      const kbps = stream.value('kbps', sample);
      const peak = stream.peak('kbps', peakWindowS);
      const severe =
        (kbps !== null && peak !== null && kbps < criticalShare * peak) || (stream.value('lossPct', sample) ?? 0) >= criticalRemoteLossPct;
      if (severe) return 2;
      // Limited, but sending near its own peak (or dipping under it only briefly): the browser's estimate holds it where it was, no one notices.
      const recent = stream.mean('kbps', heldS);
      const held = overflow || starved(stream, sample) || (recent !== null && peak !== null && recent < keptShare * peak);
      return held ? 1 : 0;
    },
    detail(stream, sample, connection) {
      const [kbps, peak, limitation] = [
        stream.value('kbps', sample),
        stream.peak('kbps', peakWindowS),
        stream.value('qualityLimitation', sample),
      ];
      const [lossPct, recentLossPct] = [stream.peak('lossPct', overflowWindowS), stream.peak('lossPct', recentLossWindowS)];
      // What it was told from: the browser's word, the far end's reports of an overflowing queue or of a standing one (a browser that does not say), or (a shared screen) the connection's estimate.
      const basis =
        limitation === BANDWIDTH
          ? 'browser'
          : overflowing(stream, sample, connection)
            ? 'overflow'
            : limitation === null
              ? 'queue'
              : 'estimate';
      const [rttMs, lowestRttMs] = [stream.value('rttMs', sample), stream.low('rttMs', basis === 'queue' ? peakWindowS : queueWindowS)];
      const [availableKbps, fps, captureFps] = [
        connection?.value('availableOutKbps') ?? null,
        stream.value('fps', sample),
        stream.value('captureFps', sample),
      ];
      const evidence = {
        kbps,
        peakKbps: peak,
        remoteLossPct: lossPct,
        recentRemoteLossPct: recentLossPct,
        rttMs,
        lowestRttMs,
        availableOutKbps: availableKbps,
        fps,
        captureFps,
        qualityLimitation: limitation === null ? null : (QUALITY_LIMITATIONS[limitation] ?? null),
      };
      const who = stream.meta.participant;
      const cause = {
        browser: `${who}'s video is limited by bandwidth: sending ${kbps?.toFixed(0)} kbit/s (peak ${peak?.toFixed(0)} in the last ${peakWindowS} s)`,
        overflow: `${who}'s uplink is overflowing: ${lossPct?.toFixed(0)} % of its video lost on the way, its RTT up from ${lowestRttMs?.toFixed(0)} to ${rttMs?.toFixed(0)} ms`,
        queue: `${who}'s uplink holds its video back: up to ${recentLossPct?.toFixed(0)} % lost on the way, its RTT up from ${lowestRttMs?.toFixed(0)} to ${rttMs?.toFixed(0)} ms, ${fps?.toFixed(0)} of the ${captureFps?.toFixed(0)} frames a second it captures sent`,
        estimate: `${who}'s shared screen is held to what its uplink carries: sending ${kbps?.toFixed(0)} kbit/s at its browser's estimate of ${availableKbps?.toFixed(0)}, ${fps?.toFixed(0)} of the ${captureFps?.toFixed(0)} frames a second it captures`,
      }[basis];
      return { evidence: { ...evidence, basis }, cause };
    },
  },
};
