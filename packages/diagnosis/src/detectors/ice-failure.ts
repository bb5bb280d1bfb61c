import type { Detector } from '../detector.js';

/** ICE found no working path, or lost the one it had: no media can flow on this connection. */
export const iceFailure: Detector = {
  type: 'ice-failure',
  category: 'connectivity',
  check: 'Firewalls and NATs between the participants; whether a TURN server is configured and reachable (ice-candidate-error events name it).',
  raiseAfter: 1,
  clearAfter: 1,
  onEvent(event) {
    if (event.type !== 'ice-connection-state') return null;
    const state = event.detail ?? '';
    return {
      subject: { participant: event.participant, streamId: null, connectionId: event.connectionId, direction: null },
      ts: event.ts,
      level: state === 'failed' ? 2 : state === 'disconnected' ? 1 : ['connected', 'completed'].includes(state) ? 0 : null,
      detail: () => ({ evidence: { iceConnectionState: state }, cause: state === 'failed' ? `ICE failed for ${event.participant}: no path between the peers` : `ICE lost its path for ${event.participant} (disconnected)` }),
    };
  },
};
