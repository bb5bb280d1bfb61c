import type { ConnectionMeta, StreamMeta } from '@rtcscope/diagnosis';
import type { ConnectionInfo, StreamInfo } from '@rtcscope/protocol';

/** A stored or just-declared stream as the diagnosis knows it. */
export const streamMeta = (
  s: Pick<StreamInfo, 'id' | 'direction' | 'kind' | 'ssrc' | 'trackId' | 'codec' | 'contentType'>,
  participant: string,
  connectionId: number,
): StreamMeta => ({
  id: s.id,
  participant,
  connectionId,
  direction: s.direction,
  kind: s.kind,
  ssrc: s.ssrc,
  trackId: s.trackId,
  codec: s.codec,
  contentType: s.contentType,
});

/** A stored or just-declared connection as the diagnosis knows it. */
export const connectionMeta = (
  c: Pick<ConnectionInfo, 'id' | 'localCandidateType' | 'localProtocol'>,
  participant: string,
): ConnectionMeta => ({
  id: c.id,
  participant,
  localCandidateType: c.localCandidateType,
  localProtocol: c.localProtocol,
});
