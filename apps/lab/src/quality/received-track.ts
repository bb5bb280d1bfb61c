/**
 * Page JavaScript (for the recorders' evaluated scripts): `receivedTrack(kind)` resolves with the track of
 * that kind the page receives media on, waiting up to 15 s for its first packets. The receiver is picked
 * by the packets its stats count, not by its place: a LiveKit subscriber's connection also holds the
 * receivers of its own sending transceivers and of subscriptions not yet forwarded, which get nothing.
 * Where the stats name no track (`trackIdentifier`), the first transceiver that receives.
 */
export const RECEIVED_TRACK = `
  const receivedTrack = async (kind) => {
    const receiving = () =>
      Object.values(window.lab.pcs)
        .filter((pc) => pc.connectionState !== 'closed')
        .flatMap((pc) => pc.getTransceivers().filter((t) => t.currentDirection === 'recvonly' || t.currentDirection === 'sendrecv'))
        .map((t) => t.receiver.track)
        .filter((t) => t && t.kind === kind);
    for (let tries = 0; tries < 30; tries++) {
      const ids = new Set();
      for (const pc of Object.values(window.lab.pcs)) {
        if (pc.connectionState === 'closed') continue;
        (await pc.getStats()).forEach((s) => {
          if (s.type === 'inbound-rtp' && s.kind === kind && s.packetsReceived > 0 && s.trackIdentifier) ids.add(s.trackIdentifier);
        });
      }
      const flowing = receiving().find((t) => ids.has(t.id));
      if (flowing) return flowing;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return receiving()[0] || null;
  };
`;
