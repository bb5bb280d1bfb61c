import type { Detector, Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import { flows, gone, stoppedByChoice, type StreamView } from '../view.js';

const fresh = (s: StreamView, now: number) => s.latest !== undefined && now - s.latest.ts <= THRESHOLDS.staleMs;
const settled = (s: StreamView) => s.age() >= THRESHOLDS.receivedSettleS;

/**
 * A receiver getting far lower resolution or frame rate than its sender sends (matched by SSRC): frames
 * lost or dropped on the way or in the receiver's decoder.
 */
export const receivedQuality: Detector = {
  type: 'received-quality',
  category: 'media',
  check: "The receiver's downlink (loss) and its device (decoding CPU); the sender's own issues if it also sends less.",
  onTick(call, now) {
    const out: Observation[] = [];
    for (const { sender, receiver } of flows(call)) {
      if (
        sender.meta.kind !== 'video' ||
        !fresh(sender, now) ||
        !fresh(receiver, now) ||
        stoppedByChoice(call, sender) ||
        gone(call, receiver)
      )
        continue;
      if (!settled(sender) || !settled(receiver)) continue;
      const [sentFps, gotFps, sentHeight, gotHeight] = [
        sender.value('fps'),
        receiver.value('fps'),
        sender.value('height'),
        receiver.value('height'),
      ];
      const shares = [
        gotFps !== null && sentFps ? gotFps / sentFps : null,
        gotHeight !== null && sentHeight ? gotHeight / sentHeight : null,
      ].filter((x): x is number => x !== null);
      const worst = shares.length ? Math.min(...shares) : null;
      const [warning, critical] = THRESHOLDS.receivedShare;
      out.push({
        subject: {
          participant: receiver.meta.participant,
          streamId: receiver.meta.id,
          connectionId: receiver.meta.connectionId,
          direction: 'in',
        },
        ts: now,
        level: worst === null ? null : worst < critical ? 2 : worst < warning ? 1 : 0,
        detail: () => ({
          evidence: { sentFps, receivedFps: gotFps, sentHeight, receivedHeight: gotHeight, sender: sender.meta.participant },
          cause: `${receiver.meta.participant} gets ${gotFps?.toFixed(0)} fps at ${gotHeight ?? '?'} px of the ${sentFps?.toFixed(0)} fps at ${sentHeight ?? '?'} px ${sender.meta.participant} sends`,
        }),
      });
    }
    return out;
  },
};
