import type { JanusEvent, JanusEventPost } from '@rtcscope/protocol';

/**
 * Janus's event-handler reports, read into what the SFU's view needs (sfu/view.ts): the VideoRoom's
 * members joining, publishing, subscribing and leaving, and their connections coming up and hanging up.
 * Everything else Janus reports (ICE candidates, DTLS, transports, other plugins) is left out.
 */

/** Event types of Janus's event handlers (janus/events.h): a bit each. */
const TYPE = { webrtc: 16, plugin: 64 } as const;
const VIDEOROOM = 'janus.plugin.videoroom';

export type SfuEventKind =
  | 'joined'
  | 'published'
  | 'subscribing'
  | 'updated'
  | 'unpublished'
  | 'left'
  | 'up'
  | 'hangup'
  | 'ice-failed'
  | 'room-started'
  | 'room-finished';

export interface SfuEventRow {
  /** Null for a connection's events: its handle ties it to the room (a plugin event of the same handle names it). */
  room: string | null;
  session: string;
  handle: string;
  /** Microseconds since the epoch, as Janus stamps it. */
  atUs: number;
  kind: SfuEventKind;
  /** The publisher the event is about ('' when none). */
  feed: string;
  detail: SfuEventDetail;
}

export interface SfuEventDetail {
  display?: string;
  /** What a publisher sends: each track's mid, kind and codec. */
  streams?: { mid: string; kind: string; codec: string | null }[];
  /** The feeds a subscription carries (its active streams'). */
  feeds?: string[];
  reason?: string;
}

const MAX_TEXT = 200;

const id = (v: unknown): string => (typeof v === 'number' || typeof v === 'string' ? String(v).slice(0, MAX_TEXT) : '');
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : undefined);
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(record) : []);

/** A POST's events: Janus sends one, or a group when it groups them. */
export const eventsOf = (post: JanusEventPost): JanusEvent[] => (Array.isArray(post) ? post : [post]);

/** The rows a POST's events make, in the order Janus sent them. */
export function readJanusEvents(events: readonly JanusEvent[]): SfuEventRow[] {
  return events.flatMap((e) => {
    const row = e.type === TYPE.plugin ? pluginRow(e) : e.type === TYPE.webrtc ? connectionRow(e) : null;
    return row ? [row] : [];
  });
}

function base(e: JanusEvent): Pick<SfuEventRow, 'session' | 'handle' | 'atUs'> {
  return { session: id(e.session_id), handle: id(e.handle_id), atUs: e.timestamp };
}

function pluginRow(e: JanusEvent): SfuEventRow | null {
  if (e.event.plugin !== VIDEOROOM) return null;
  const data = record(e.event.data);
  const room = id(data.room);
  if (!room) return null;
  const at = { ...base(e), room };
  const display = text(data.display);
  switch (data.event) {
    case 'joined':
      return { ...at, kind: 'joined', feed: id(data.id), detail: display === undefined ? {} : { display } };
    case 'published':
      return {
        ...at,
        kind: 'published',
        feed: id(data.id),
        detail: {
          ...(display === undefined ? {} : { display }),
          streams: list(data.streams).map((s) => ({ mid: id(s.mid), kind: text(s.type) ?? 'unknown', codec: text(s.codec) ?? null })),
        },
      };
    case 'subscribing':
    case 'updated':
      return { ...at, kind: data.event, feed: '', detail: { feeds: subscribedFeeds(data.streams) } };
    case 'unpublished':
      return { ...at, kind: 'unpublished', feed: id(data.id), detail: {} };
    case 'leaving':
      return { ...at, kind: 'left', feed: id(data.id), detail: {} };
    default:
      return null;
  }
}

/** The feeds of a subscription's streams that are on (an `updated` event lists removed ones as inactive). */
function subscribedFeeds(streams: unknown): string[] {
  const feeds = list(streams)
    .filter((s) => s.active !== false)
    .map((s) => id(s.feed_id))
    .filter(Boolean);
  return [...new Set(feeds)];
}

function connectionRow(e: JanusEvent): SfuEventRow | null {
  const at = { ...base(e), room: null, feed: '' };
  if (!at.handle) return null;
  if (e.event.connection === 'webrtcup') return { ...at, kind: 'up', detail: {} };
  if (e.event.connection === 'hangup') {
    const reason = text(e.event.reason);
    return { ...at, kind: 'hangup', detail: reason === undefined ? {} : { reason } };
  }
  if (e.event.ice === 'failed') return { ...at, kind: 'ice-failed', detail: {} };
  return null;
}
