import type { MediaSection } from '@rtcscope/protocol/fields';

const DIRECTIONS = new Set(['sendrecv', 'sendonly', 'recvonly', 'inactive']);

/**
 * The media sections of a session description: each m-line's kind and direction (its own `a=` line, else
 * the session's, else sendrecv as RFC 4566 says), a rejected one (port 0) as inactive. Data channels
 * (`application`) have no direction.
 */
export function mediaSections(sdp: string): MediaSection[] {
  const sections: { kind: string; port: string; direction: string | null }[] = [];
  let sessionDirection: string | null = null;
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith('m=')) {
      const [kind = '', port = ''] = line.slice(2).split(' ');
      sections.push({ kind, port, direction: null });
    } else if (line.startsWith('a=') && DIRECTIONS.has(line.slice(2).trim())) {
      const direction = line.slice(2).trim();
      const current = sections.at(-1);
      if (current) current.direction = direction;
      else sessionDirection = direction;
    }
  }
  return sections.map(({ kind, port, direction }) => ({
    kind,
    direction: kind === 'application' ? null : port === '0' ? 'inactive' : (direction ?? sessionDirection ?? 'sendrecv'),
  }));
}

/**
 * The SDP of a description as recordings keep it: an object with `sdp` (rtcstats), or a string that holds
 * it after its type (webrtc-internals' `type: offer, sdp: v=0…`); null where there is none.
 */
export function sdpOf(value: unknown): string | null {
  if (typeof value === 'object' && value !== null && typeof (value as { sdp?: unknown }).sdp === 'string')
    return (value as { sdp: string }).sdp;
  if (typeof value !== 'string') return null;
  const at = value.indexOf('v=0');
  return at < 0 ? null : value.slice(at);
}
