import type { LiveKitEventPost, LiveKitWebhookEvent } from '@rtcscope/protocol';
import { toId } from '@rtcscope/protocol/fields';
import type { SfuEventRow } from './janus-events.js';

/**
 * LiveKit's webhook events, read into the rows the SFU's view reads (sfu/view.ts): when the room started
 * and finished, who joined and left it and what each published and unpublished. A room is the call its
 * SDK adapter names after it (`monitorLiveKitRoom`: the room's name as an id), a member its identity, a
 * track its SID (the id the adapter names the track by at both ends). Egress and ingress events are left out.
 */

const MAX_TEXT = 200;
const text = (v: string | undefined): string => (v ?? '').slice(0, MAX_TEXT);
/**
 * A track's type, as protobuf's JSON writes it ("VIDEO") or as its number. Protobuf leaves out a field at
 * its default, and AUDIO is 0: LiveKit posts an audio track with no type at all.
 */
const TRACK_TYPES = ['audio', 'video', 'data'];
const kindOf = (t: string | number | undefined): string =>
  t === undefined ? 'audio' : typeof t === 'number' ? (TRACK_TYPES[t] ?? 'unknown') : t.toLowerCase();

export const liveKitEventsOf = (post: LiveKitEventPost): LiveKitWebhookEvent[] => (Array.isArray(post) ? post : [post]);

/** When LiveKit says the event happened, in microseconds (it says seconds). */
export const liveKitAtUs = (e: LiveKitWebhookEvent): number => Number(e.createdAt) * 1_000_000;

export function readLiveKitEvents(events: readonly LiveKitWebhookEvent[]): SfuEventRow[] {
  return events.flatMap((e) => {
    const row = rowOf(e);
    return row ? [row] : [];
  });
}

function rowOf(e: LiveKitWebhookEvent): SfuEventRow | null {
  const room = e.room?.name ? toId(e.room.name) : '';
  if (!room) return null;
  if (e.event === 'room_started' || e.event === 'room_finished') {
    const kind = e.event === 'room_started' ? 'room-started' : 'room-finished';
    return { room, session: text(e.room?.sid), handle: '', atUs: liveKitAtUs(e), kind, feed: '', detail: {} };
  }
  const identity = text(e.participant?.identity);
  if (!identity) return null;
  const at = { room, session: text(e.participant?.sid), atUs: liveKitAtUs(e), feed: identity };
  const display = text(e.participant?.name) || identity;
  switch (e.event) {
    case 'participant_joined':
      return { ...at, handle: '', kind: 'joined', detail: { display } };
    case 'participant_left':
      return { ...at, handle: '', kind: 'left', detail: {} };
    case 'track_published':
    case 'track_unpublished': {
      const sid = text(e.track?.sid);
      if (!sid) return null;
      const kind = e.event === 'track_published' ? 'published' : 'unpublished';
      return {
        ...at,
        handle: sid,
        kind,
        detail: { display, streams: [{ mid: sid, kind: kindOf(e.track?.type), codec: e.track?.mimeType ? text(e.track.mimeType) : null }] },
      };
    }
    default:
      return null;
  }
}
