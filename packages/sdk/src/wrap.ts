import type { Monitor, PeerConnectionOptions } from './monitor.js';

/**
 * Opt-in: every RTCPeerConnection the page creates from now on is attached to `monitor`. For apps that
 * cannot hand their connections over. Returns a function that restores the original constructor.
 */
export function wrapPeerConnections(
  monitor: Pick<Monitor, 'addPeerConnection'>,
  options: (pc: RTCPeerConnection) => PeerConnectionOptions = () => ({}),
): () => void {
  const Original = globalThis.RTCPeerConnection;
  class MonitoredPeerConnection extends Original {
    constructor(configuration?: RTCConfiguration) {
      super(configuration);
      monitor.addPeerConnection(this, options(this));
    }
  }
  globalThis.RTCPeerConnection = MonitoredPeerConnection;
  return () => {
    globalThis.RTCPeerConnection = Original;
  };
}
