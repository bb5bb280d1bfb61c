import { type Detector, levelOf, type Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { Level } from '../types.js';
import { type CallView, copiedThroughSfu, gone, stoppedByChoice, type StreamView } from '../view.js';

/** Whom an SFU's trouble is raised on: the SFU, which reports nothing itself, as a participant of the call. */
export const SFU_PARTICIPANT = 'SFU';

const SUBJECT = { participant: SFU_PARTICIPANT, streamId: null, connectionId: null, direction: null };

/**
 * Each subscriber's recent loss over what it receives through the SFU, taken per publisher (the worse of
 * its streams) and then the least of them: loss the SFU's side causes hits every publisher's media alike,
 * loss from one publisher's uplink only that publisher's.
 */
function subscribersOf(call: CallView): Map<string, { lossPct: number; senders: Set<string> }> {
  const bySubscriber = new Map<string, Map<string, number>>();
  for (const [r, senders] of call.pairing.all()) {
    if (gone(call, r) || !copiedThroughSfu(senders, r)) continue;
    const sender = senders.find((s: StreamView) => !stoppedByChoice(call, s));
    const lossPct = r.mean('lossPct', THRESHOLDS.sfuLossWindowS);
    if (!sender || lossPct === null) continue;
    const perSender = bySubscriber.get(r.meta.participant) ?? new Map<string, number>();
    const p = sender.meta.participant;
    perSender.set(p, Math.max(perSender.get(p) ?? 0, lossPct));
    bySubscriber.set(r.meta.participant, perSender);
  }
  return new Map(
    [...bySubscriber].map(([p, perSender]) => [p, { lossPct: Math.min(...perSender.values()), senders: new Set(perSender.keys()) }]),
  );
}

/**
 * Through an SFU, every subscriber loses packets at once, of every publisher it receives: no one
 * participant's network explains that; the SFU's side does (its host, its uplink or downlink, the route
 * to it). One subscriber's loss is its own downlink's (`downlink-loss` on it); one publisher's, every
 * subscriber's of that publisher only, is that publisher's uplink's — a subscriber that still gets
 * another publisher's media whole clears the SFU. Needs two subscribers or more, each receiving from two
 * publishers or more (with fewer, the SFU's side and one person's path read the same). Its level is the
 * least-hit subscriber's.
 */
export const sfuPath: Detector = {
  type: 'sfu-path',
  category: 'network',
  check:
    "The SFU's host and network: its CPU, its uplink and downlink, the route between it and the participants (every subscriber loses packets, whoever sends them).",
  onTick(call, now) {
    const subscribers = subscribersOf(call);
    const publishers = new Set([...subscribers.values()].flatMap((s) => [...s.senders]));
    if (subscribers.size < 2 || [...subscribers.values()].some((s) => s.senders.size < 2)) return [];
    const losses = [...subscribers.values()].map((s) => s.lossPct);
    const least = Math.min(...losses);
    const level: Level = levelOf(least, THRESHOLDS.lossPct);
    const observation: Observation = {
      subject: SUBJECT,
      ts: now,
      level,
      detail: () => ({
        evidence: {
          subscribers: subscribers.size,
          publishers: publishers.size,
          leastLossPct: Math.round(least * 10) / 10,
          mostLossPct: Math.round(Math.max(...losses) * 10) / 10,
        },
        cause: `every subscriber through the SFU loses packets of every publisher at once (at least ${[...subscribers].map(([p, s]) => `${p} ${s.lossPct.toFixed(1)} %`).join(', ')}): the SFU's side, not one participant's network`,
      }),
    };
    return [observation];
  },
};
