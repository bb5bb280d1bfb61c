import type { Detector, Observation } from '../detector.js';
import { THRESHOLDS } from '../thresholds.js';
import { flows, gone, type CallView } from '../view.js';
import type { DiagnosisEvent } from '../types.js';

const subjectOf = (event: DiagnosisEvent) => ({
  participant: event.participant,
  streamId: null,
  connectionId: event.connectionId,
  direction: null,
});

/** Each connection's newest ICE state, by connection id, and whether it was ever connected before it. */
function latestIceStates(call: CallView): Map<number, { event: DiagnosisEvent; connectedBefore: boolean }> {
  const latest = new Map<number, { event: DiagnosisEvent; connectedBefore: boolean }>();
  for (const event of call.events) {
    if (event.type !== 'ice-connection-state' || event.connectionId === null) continue;
    const before = latest.get(event.connectionId);
    const connectedBefore = (before?.connectedBefore ?? false) || CONNECTED.has(before?.event.detail ?? '');
    latest.set(event.connectionId, { event, connectedBefore });
  }
  return latest;
}
const CONNECTED = new Set(['connected', 'completed']);

/** Whether the event's connection had connected before it. */
const wasConnected = (call: CallView, event: DiagnosisEvent): boolean =>
  call.events.some(
    (e) =>
      e !== event &&
      e.ts <= event.ts &&
      e.connectionId === event.connectionId &&
      e.participant === event.participant &&
      (e.type === 'ice-connection-state' || e.type === 'connection-state') &&
      CONNECTED.has(e.detail ?? ''),
  );

/** Whether everyone this connection exchanged media with has left or closed their end: then losing the path is the call ending. */
function farSideGone(call: CallView, connectionId: number): boolean {
  const far = [];
  for (const { sender, receiver } of flows(call)) {
    if (sender.meta.connectionId === connectionId) far.push(receiver);
    if (receiver.meta.connectionId === connectionId) far.push(sender);
  }
  return far.length > 0 && far.every((s) => gone(call, s));
}

/**
 * ICE found no working path, or lost the one it had: no media can flow on this connection. A failure is
 * raised at once; a `disconnected` once it has lasted (it often heals by itself), unless this end or the
 * far one closed or left. Not on a connection that carries no audio or video (a data channel alone: an
 * analytics service's probe in the same page), which is not the call's.
 */
export const iceFailure: Detector = {
  type: 'ice-failure',
  category: 'connectivity',
  check:
    'Firewalls and NATs between the participants; whether a TURN server is configured and reachable (ice-candidate-error events name it).',
  raiseAfter: 1,
  clearAfter: 1,
  onEvent(event, call) {
    // The connection's own state says ICE's (or DTLS's) failure too, where a recording logged only it.
    const connectionState = event.type === 'connection-state';
    if (
      (event.type !== 'ice-connection-state' && !connectionState) ||
      (event.connectionId !== null && call.dataOnly.has(event.connectionId))
    )
      return null;
    const state = event.detail ?? '';
    if (connectionState && state !== 'failed' && state !== 'connected') return null;
    const level = state === 'failed' ? 2 : CONNECTED.has(state) ? 0 : null;
    if (level === null) return null;
    return {
      subject: subjectOf(event),
      ts: event.ts,
      level,
      detail: () => ({
        evidence: { [connectionState ? 'connectionState' : 'iceConnectionState']: state },
        cause: wasConnected(call, event)
          ? `${event.participant}'s connection failed after it had connected: ICE lost its path and found none again`
          : `ICE failed for ${event.participant}: no path between the peers`,
      }),
    };
  },
  onTick(call, now) {
    const out: Observation[] = [];
    for (const [connectionId, { event, connectedBefore }] of latestIceStates(call)) {
      const lostS = (now - event.ts) / 1000;
      if (event.detail !== 'disconnected' || lostS < THRESHOLDS.iceDisconnectedS) continue;
      if (
        call.closed.has(connectionId) ||
        call.dataOnly.has(connectionId) ||
        call.left.has(event.participant) ||
        farSideGone(call, connectionId)
      )
        continue;
      out.push({
        subject: subjectOf(event),
        ts: now,
        level: 1,
        detail: () => ({
          evidence: { iceConnectionState: 'disconnected', disconnectedS: Math.round(lostS) },
          cause: connectedBefore
            ? `ICE lost its path for ${event.participant} ${Math.round(lostS)} s ago and has not found it again (disconnected)`
            : `ICE has found no path for ${event.participant}: disconnected for ${Math.round(lostS)} s, never connected`,
        }),
      });
    }
    return out;
  },
};
