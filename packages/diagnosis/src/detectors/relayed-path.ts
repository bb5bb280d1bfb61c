import type { Detector } from '../detector.js';

/** Media relayed through TURN, or carried over TCP: it works, with more delay and less resilience to loss. */
export const relayedPath: Detector = {
  type: 'relayed-path',
  category: 'connectivity',
  check: 'Why a direct path failed: a symmetric NAT or a firewall blocking UDP; TCP or TLS relays add head-of-line blocking under loss.',
  levels: ['info', 'warning'],
  raiseAfter: 1,
  clearAfter: 1,
  onConnection(connection, sample) {
    const { localCandidateType: type, localProtocol: protocol } = connection.meta;
    const relay = type === 'relay';
    const tcp = protocol === 'tcp';
    return {
      subject: { participant: connection.meta.participant, streamId: null, connectionId: connection.meta.id, direction: null },
      ts: sample.ts,
      level: type === null && protocol === null ? null : tcp ? 2 : relay ? 1 : 0,
      detail: () => ({
        evidence: { localCandidateType: type, localProtocol: protocol },
        cause: `${connection.meta.participant}'s media goes ${relay ? 'through a TURN relay' : 'directly'}${tcp ? ' over TCP' : ''}`,
      }),
    };
  },
};
