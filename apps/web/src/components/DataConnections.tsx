import type { CallDetail, CallEvent } from '@rtcscope/protocol';
import { dataOnly } from '@rtcscope/protocol/fields';
import { formatTime, timeZone } from '../lib/format.js';

/** How a connection's set-up went, from its events: whether it ever connected, and the last state it reached. */
function outcome(events: readonly CallEvent[], connectionId: number): string {
  const states = events.filter(
    (e) => e.connectionId === connectionId && (e.type === 'connection-state' || e.type === 'ice-connection-state') && e.detail,
  );
  const last = states.at(-1);
  const at = last ? ` at ${formatTime(last.ts)} (${timeZone})` : '';
  if (states.some((e) => e.detail === 'connected' || e.detail === 'completed')) return `connected; ${last!.detail}${at}`;
  return last ? `${last.detail}${at}, never connected` : 'never connected';
}

/**
 * Connections that negotiated no audio or video: a data channel alone, such as an analytics service's
 * probe or a file transfer in the same page. Not the call's media: shown apart, their set-up and ICE raise
 * no issue. Nothing shows when there are none.
 */
export function DataConnections({ detail, events }: { detail: CallDetail; events: readonly CallEvent[] }) {
  const data = detail.participants.flatMap((p) =>
    p.connections.filter((c) => c.media && dataOnly(c.media)).map((c) => ({ participant: p.id, id: c.id, key: c.key })),
  );
  if (!data.length) return null;
  return (
    <section className="panel muted small" data-testid="data-connections">
      <h2>Connections that carry no audio or video</h2>
      <p>
        A data channel alone (an analytics service’s probe, a file transfer beside the call): not the call’s media, so its set-up and ICE
        raise no issue and it takes no part in any score.
      </p>
      <ul>
        {data.map((c) => (
          <li key={c.id} data-testid="data-connection">
            {c.participant}’s {c.key}: {outcome(events, c.id)}
          </li>
        ))}
      </ul>
    </section>
  );
}
