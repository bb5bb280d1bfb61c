import { type Detector, levelOf } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import { type CallView, copiedThroughSfu, type StreamView } from '../view.js';

/** How the call receives a sent stream: peer to peer by a participant that counts its own loss, through an SFU, or not at all here. */
function receivedAs(call: CallView, sent: StreamView): 'peer' | 'sfu' | 'unseen' {
  let sfu = false;
  for (const [receiver, senders] of call.pairing.all()) {
    if (!senders.includes(sent)) continue;
    if (!copiedThroughSfu(senders, receiver)) return 'peer';
    sfu = true;
  }
  return sfu ? 'sfu' : 'unseen';
}

/**
 * Packets a participant sends lost before they reach the far end, as the far end's reports say (RTCP):
 * told where no participant of the call receives the stream peer to peer and counts the loss itself (that
 * receiver's `downlink-loss` tells it): through an SFU, the reports are the SFU's, and the loss is on the
 * sender's way to it (a publisher on a lossy uplink, which every subscriber suffers); with the far end
 * not monitored (a one-sided recording), on the sender's uplink or the far end's downlink. A stream that
 * sent nothing in the interval has no report to trust.
 */
export const uplinkLoss: Detector = {
  type: 'uplink-loss',
  category: 'network',
  check:
    "The sender's network: Wi-Fi signal, a congested or lossy uplink, a VPN; through an SFU, the route to it (other publishers' reports tell whether it is the SFU's side).",
  stream: {
    applies: (meta) => meta.direction === 'out',
    level(stream, sample, _connection, call) {
      if (!stream.value('packets', sample)) return null;
      const level = levelOf(stream.value('lossPct', sample), THRESHOLDS.lossPct);
      return level && receivedAs(call, stream) === 'peer' ? 0 : level;
    },
    detail(stream, sample, _connection, call) {
      const lossPct = stream.value('lossPct', sample);
      const { kind, participant } = stream.meta;
      const lost = `${lossPct?.toFixed(1)} % of the ${kind} packets ${participant} sends`;
      return {
        evidence: { lossPct, packetsLost: stream.value('packetsLost', sample) },
        cause:
          receivedAs(call, stream) === 'sfu'
            ? `the SFU reports ${lost} lost on their way to it: ${participant}'s uplink`
            : `${participant}'s far end reports ${lost} lost on the way (${participant}'s uplink, or the far end's downlink: the far end is not monitored)`,
      };
    },
  },
};
