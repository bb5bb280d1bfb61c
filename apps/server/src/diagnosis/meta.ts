import type { StreamMeta } from '@rtcscope/diagnosis';
import type { StreamInfo } from '@rtcscope/protocol';

/** A stored or just-declared stream as the diagnosis knows it. */
export const streamMeta = (s: StreamInfo, participant: string, connectionId: number): StreamMeta => ({
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
