import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { CallView, ConnectionView } from '../view.js';

/** The highest round trip the far end's reports give for what the connection sends (RTCP); null where none says. */
function reportedRttMs(call: CallView, connection: ConnectionView): number | null {
  let highest: number | null = null;
  for (const s of call.streams.values()) {
    if (s.meta.connectionId !== connection.meta.id || s.meta.direction !== 'out') continue;
    const rtt = s.value('rttMs');
    if (rtt !== null && (highest === null || rtt > highest)) highest = rtt;
  }
  return highest;
}

/** Whether the far end's reports say the round trip is high as well. */
const confirms = (reportedMs: number | string | null): boolean => typeof reportedMs === 'number' && reportedMs >= THRESHOLDS.rttMs[0];

/**
 * A round trip long enough to be heard as talking over each other, from the selected candidate pair.
 * Its ICE checks come seconds apart and one answered late reads high until the next, so it alone is
 * trusted once it lasts (`rttRaiseAfter`); the far end's RTCP reports, a second clock on the same path,
 * saying as much confirm it sooner. A browser whose pair says no round trip (Firefox's, older ones'):
 * the reports alone, trusted once they last.
 */
export const highRtt: Detector = {
  type: 'high-rtt',
  category: 'network',
  check:
    'The path between the participants: a distant relay or region, a VPN, queues filling on a congested link (the RTT rises with the load).',
  raiseAfter: THRESHOLDS.rttRaiseAfter,
  confirmedBy: (evidence) => confirms(evidence.reportedRttMs ?? null),
  onConnection(connection, sample, call) {
    const pairMs = connection.value('rttMs');
    const rttMs = pairMs ?? reportedRttMs(call, connection);
    const level = levelOf(rttMs, THRESHOLDS.rttMs);
    const reportedMs = level && pairMs !== null ? reportedRttMs(call, connection) : null;
    return {
      subject: { participant: connection.meta.participant, streamId: null, connectionId: connection.meta.id, direction: null },
      ts: sample.ts,
      level,
      confirmed: confirms(reportedMs),
      detail: () => ({
        evidence: { rttMs, reportedRttMs: reportedMs },
        cause:
          pairMs === null
            ? `round trip of ${rttMs?.toFixed(0)} ms from ${connection.meta.participant} in the far end's reports`
            : `round trip of ${rttMs?.toFixed(0)} ms from ${connection.meta.participant}${reportedMs === null ? '' : ` (${reportedMs.toFixed(0)} ms in the far end's reports)`}`,
      }),
    };
  },
};
