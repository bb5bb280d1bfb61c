import { type Detector, levelOf, type Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import type { CallView } from '../view.js';
import type { DiagnosisEvent } from '../types.js';

const started = (call: CallView, e: { participant: string; connectionId: number | null }) =>
  call.events.find((x) => x.participant === e.participant && x.connectionId === e.connectionId && x.type === 'connection-added')?.ts ??
  null;
const connected = (e: DiagnosisEvent) => e.type === 'connection-state' && e.detail === 'connected';

/**
 * A connection that took long to connect (from being added to connected), or has not connected yet. Not
 * one that carries no audio or video (a data channel alone, such as an analytics service's probe in the
 * same page): its set-up is not the call's.
 */
export const slowSetup: Detector = {
  type: 'slow-setup',
  category: 'connectivity',
  check:
    'ICE gathering (many candidates, unreachable STUN or TURN servers time out), signaling delays in the app, a relay found only after direct paths failed.',
  raiseAfter: 1,
  clearAfter: 1,
  onEvent(event, call) {
    // Only a connection's first connect is its set-up; later ones are reconnections (ice-failure's).
    if (
      !connected(event) ||
      (event.connectionId !== null && call.dataOnly.has(event.connectionId)) ||
      call.events.filter((e) => e.participant === event.participant && e.connectionId === event.connectionId && connected(e)).length > 1
    )
      return null;
    const from = started(call, event);
    if (from === null) return null;
    const setupMs = event.ts - from;
    const subject = { participant: event.participant, streamId: null, connectionId: event.connectionId, direction: null };
    // An issue from the moment it was added until it connected, when it took long.
    return [
      {
        subject,
        ts: from,
        level: levelOf(setupMs, THRESHOLDS.setupMs),
        detail: () => ({
          evidence: { setupMs },
          cause: `${event.participant}'s connection took ${(setupMs / 1000).toFixed(1)} s to connect`,
        }),
      },
      { subject, ts: event.ts, level: 0, detail: () => ({ evidence: { setupMs }, cause: '' }) },
    ];
  },
  onTick(call, now) {
    const out: Observation[] = [];
    for (const added of call.events) {
      if (added.type !== 'connection-added' || (added.connectionId !== null && call.dataOnly.has(added.connectionId))) continue;
      if (
        call.events.some(
          (e) =>
            e.participant === added.participant &&
            e.connectionId === added.connectionId &&
            (connected(e) || e.type === 'connection-removed'),
        )
      )
        continue;
      const waitingMs = now - added.ts;
      if (waitingMs < THRESHOLDS.setupMs[1]) continue;
      out.push({
        subject: { participant: added.participant, streamId: null, connectionId: added.connectionId, direction: null },
        ts: added.ts,
        level: 2,
        detail: () => ({
          evidence: { waitingMs },
          cause: `${added.participant}'s connection has not connected after ${(waitingMs / 1000).toFixed(0)} s`,
        }),
      });
    }
    return out;
  },
};
