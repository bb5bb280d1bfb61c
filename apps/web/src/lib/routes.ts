import type { CallDetail } from '@rtcscope/protocol';

/** A track a participant sends, the layers it sends it in, and who receives a copy. */
export interface Route {
  sender: string;
  kind: 'audio' | 'video';
  trackId: string | null;
  /** Simulcast layers by rid (e.g. q, h, f), in the order the sender reported them; empty: one encoding. */
  layers: string[];
  receivers: string[];
}

/**
 * Who receives whom, per sent track: the received copies whose sender is known (`from`, matched by
 * SSRC peer to peer and by track id through an SFU), grouped under the sender's track they copy. A
 * sender's copies that match none of its tracks (an SSRC match with no track id) go under its first
 * track of the same kind. Receivers are listed by id.
 */
export function routesOf(detail: CallDetail): Route[] {
  const routes = new Map<string, Route>();
  for (const p of detail.participants)
    for (const s of p.connections.flatMap((c) => c.streams)) {
      if (s.direction !== 'out') continue;
      const key = `${p.id}\u0000${s.kind}\u0000${s.trackId ?? s.ssrc}`;
      const route = routes.get(key) ?? { sender: p.id, kind: s.kind, trackId: s.trackId, layers: [], receivers: [] };
      routes.set(key, route);
      if (s.rid && !route.layers.includes(s.rid)) route.layers.push(s.rid);
    }
  const list = [...routes.values()];
  for (const p of detail.participants)
    for (const s of p.connections.flatMap((c) => c.streams)) {
      if (s.direction !== 'in' || s.from === null) continue;
      const ofSender = list.filter((r) => r.sender === s.from && r.kind === s.kind);
      const route = ofSender.find((r) => r.trackId !== null && r.trackId === s.trackId) ?? ofSender[0];
      if (route && !route.receivers.includes(p.id)) route.receivers.push(p.id);
    }
  // Receivers by id, so that a route reads the same whichever of them joined first.
  for (const r of list) r.receivers.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return list.filter((r) => r.receivers.length > 0 || r.layers.length > 1);
}
