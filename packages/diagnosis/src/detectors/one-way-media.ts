import type { Detector, Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import { flows, gone, stoppedByChoice, type StreamView } from '../view.js';

const kbpsNow = (s: StreamView, now: number) => (s.latest && now - s.latest.ts <= THRESHOLDS.staleMs ? s.value('kbps') : null);

/**
 * A participant sends, and the participant its stream goes to (the one receiving its SSRC) reports but
 * gets nothing. Only the server sees both ends: it matches the sender's outbound SSRC with the
 * receiver's inbound one (peer to peer; through an SFU the SSRCs differ and nothing is judged).
 */
export const oneWayMedia: Detector = {
  type: 'one-way-media',
  category: 'media',
  check:
    "Between the two: a firewall or NAT that lets media out but not in, a relay that forwards one way, the receiver's app not attaching the track.",
  onTick(call, now) {
    const out: Observation[] = [];
    for (const { sender, receiver } of flows(call)) {
      // One who has left or closed its connection stops sending and receiving (that is the call ending for
      // it), and a muted track sends nothing: not one-way media.
      const ended = stoppedByChoice(call, sender) || gone(call, receiver);
      const sent = ended ? null : kbpsNow(sender, now);
      const got = ended ? null : kbpsNow(receiver, now);
      const known = sent !== null && got !== null;
      out.push({
        subject: {
          participant: receiver.meta.participant,
          streamId: receiver.meta.id,
          connectionId: receiver.meta.connectionId,
          direction: 'in',
        },
        ts: now,
        level: !known ? null : sent >= THRESHOLDS.oneWaySendKbps && got < THRESHOLDS.noMediaKbps ? 2 : 0,
        detail: () => ({
          evidence: { sentKbps: sent, receivedKbps: got, sender: sender.meta.participant },
          cause: `${sender.meta.participant} sends ${sender.meta.kind} at ${sent?.toFixed(0)} kbit/s; ${receiver.meta.participant} receives none of it`,
        }),
      });
    }
    return out;
  },
};
