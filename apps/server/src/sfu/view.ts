import type { SfuConnection, SfuMember, SfuView } from '@rtcscope/protocol';
import type { SfuEventRow } from './janus-events.js';

/**
 * The SFU's view of a call's room from its events: each member as the SFU saw it (who joined and left,
 * what it published, whose feeds it subscribed to, when its connections were up), tied to the call's
 * participant that reported the same feed (`participantOf`; null when no SDK did).
 */

interface Draft extends Omit<SfuMember, 'connections' | 'subscribedTo'> {
  subscribedTo: Set<string>;
  handles: Map<string, SfuConnection['role']>;
}

const ms = (atUs: number) => atUs / 1000;

export function sfuView(
  sfu: SfuView['sfu'],
  rows: readonly SfuEventRow[],
  participantOf: (room: string, feed: string, display: string | null) => string | null,
): SfuView | null {
  const members = new Map<string, Draft>();
  /** Which member each handle and session is, by the publisher events that name them. */
  const byHandle = new Map<string, Draft>();
  const bySession = new Map<string, Draft>();
  const ordered = [...rows].sort((a, b) => a.atUs - b.atUs);

  const member = (key: string, room: string, feed: string | null): Draft => {
    let m = members.get(key);
    if (!m) {
      m = {
        room,
        feed,
        display: null,
        participantId: null,
        joinedAt: null,
        leftAt: null,
        published: [],
        subscribedTo: new Set(),
        handles: new Map(),
      };
      members.set(key, m);
    }
    return m;
  };

  for (const r of ordered) {
    if (r.room === null || !r.feed) continue;
    const m = member(`${r.room}:${r.feed}`, r.room, r.feed);
    if (r.detail.display !== undefined) m.display = r.detail.display;
    if ((r.kind === 'joined' || r.kind === 'published') && m.joinedAt === null) m.joinedAt = ms(r.atUs);
    if (sfu === 'livekit') {
      // LiveKit says each track as it is published (its SID the row's handle), and unpublishes them all
      // as a member leaves: the member's tracks are all it published in the room. It tells of no
      // connection, nor of subscriptions.
      const sid = r.detail.streams?.[0]?.mid;
      if (r.kind === 'published') m.published = [...m.published.filter((t) => t.mid !== sid), ...(r.detail.streams ?? [])];
      if (r.kind === 'left') m.leftAt = ms(r.atUs);
      continue;
    }
    if (r.kind === 'published' && r.detail.streams) m.published = r.detail.streams;
    if (r.kind === 'left') m.leftAt = ms(r.atUs);
    if ((r.kind === 'joined' || r.kind === 'published') && r.handle) {
      m.handles.set(r.handle, 'publisher');
      byHandle.set(r.handle, m);
      if (r.session) bySession.set(r.session, m);
    }
  }
  for (const r of ordered) {
    if (r.room === null || (r.kind !== 'subscribing' && r.kind !== 'updated')) continue;
    // Janus reports the updates a leaving publisher makes to others' subscriptions on that publisher's
    // own handle (seen in Janus 1.1): such an update says nothing of whose subscription it was.
    if (byHandle.get(r.handle)?.handles.get(r.handle) === 'publisher') continue;
    const owner = bySession.get(r.session);
    // A subscription in a session that published nothing is a member that only watches.
    const m = owner?.room === r.room ? owner : member(`${r.room}:session:${r.session}`, r.room, null);
    if (m.joinedAt === null) m.joinedAt = ms(r.atUs);
    for (const f of r.detail.feeds ?? []) m.subscribedTo.add(f);
    if (r.handle) {
      m.handles.set(r.handle, 'subscriber');
      byHandle.set(r.handle, m);
    }
  }
  if (!members.size) return null;

  const connections = new Map<string, SfuConnection>();
  for (const r of ordered) {
    const m = byHandle.get(r.handle);
    if (!m || (r.kind !== 'up' && r.kind !== 'hangup' && r.kind !== 'ice-failed')) continue;
    const c = connections.get(r.handle) ?? { role: m.handles.get(r.handle)!, upAt: null, downAt: null, reason: null };
    connections.set(r.handle, c);
    if (r.kind === 'up') c.upAt ??= ms(r.atUs);
    else {
      c.downAt = ms(r.atUs);
      c.reason = r.kind === 'ice-failed' ? 'ICE failed' : (r.detail.reason ?? c.reason);
    }
  }

  return {
    sfu,
    members: [...members.values()]
      .sort((a, b) => (a.joinedAt ?? Infinity) - (b.joinedAt ?? Infinity))
      .map(({ handles, subscribedTo, ...m }) => ({
        ...m,
        participantId: m.feed === null ? null : participantOf(m.room, m.feed, m.display),
        subscribedTo: [...subscribedTo].sort(),
        connections: [...handles.keys()].map(
          (h) => connections.get(h) ?? { role: handles.get(h)!, upAt: null, downAt: null, reason: null },
        ),
      })),
  };
}
