import type { StreamState } from '@rtcscope/diagnosis';
import type { StreamLife } from '../lib/calldata.js';
import { formatTime, timeZone } from '../lib/format.js';
import { STATE_WORDS } from './MetricChart.js';

const WHY: Record<Exclude<StreamState, 'active'>, string> = {
  'never-active': 'an SFU’s placeholder, a receive-only transceiver or a feed that publishes nothing',
  paused: 'muted or disabled by its sender, or no longer forwarded by the SFU, while the rest of its participant’s media went on',
  ended: 'no longer reported while the call went on: removed by a renegotiation or its connection closed',
};

/**
 * The streams that are not active, greyed with their state and what that usually means: while they
 * carry nothing they raise no issue and take no part in a score. Nothing shows when all are active.
 */
export function StreamStates({
  labels,
  states,
  unscorable,
}: {
  labels: ReadonlyMap<number, string>;
  states: ReadonlyMap<number, StreamLife>;
  unscorable: ReadonlyMap<number, string[]>;
}) {
  const idle = [...states].filter(([, life]) => life.state !== 'active');
  if (!idle.length && !unscorable.size) return null;
  const groups = (['never-active', 'paused', 'ended'] as const)
    .map((state) => ({ state, streams: idle.filter(([, life]) => life.state === state) }))
    .filter((g) => g.streams.length);
  return (
    <section className="panel muted small" data-testid="stream-states">
      <h2>Streams not active or not scored</h2>
      <p>While a stream carries nothing it raises no issue and takes no part in any score; its lines are greyed.</p>
      <ul>
        {[...unscorable].map(([id, missing]) => (
          <li key={`unscored-${id}`} data-testid="stream-unscored">
            <strong>not scored</strong>: {labels.get(id) ?? `stream ${id}`} — its browser never reported its {missing.join(' or its ')},
            which the video score needs (Firefox before 98 reports neither); its other fields are judged.
          </li>
        ))}
        {groups.map((g) => (
          <li key={g.state} data-testid={`stream-state-${g.state}`}>
            <strong>{STATE_WORDS[g.state]}</strong> ({WHY[g.state]}):{' '}
            {g.streams.map(([id, life], k) => (
              <span key={id}>
                {k > 0 && '; '}
                {labels.get(id) ?? `stream ${id}`}
                {life.lastActiveAt !== null ? `, last carried media at ${formatTime(life.lastActiveAt)} (${timeZone})` : ''}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
