import type { CallEvent } from '@rtcscope/protocol';
import { useMemo, useState } from 'react';
import { formatTime, shortIds, timeZone } from '../lib/format.js';

/** The call's events, newest last, filtered by participant and type; long ids cut, whole on hover. */
export function EventList({ events, colors }: { events: CallEvent[]; colors: ReadonlyMap<string, string> }) {
  const [participant, setParticipant] = useState('');
  const [type, setType] = useState('');
  const participants = useMemo(() => [...new Set(events.map((e) => e.participantId))].sort(), [events]);
  const types = useMemo(() => [...new Set(events.map((e) => e.type))].sort(), [events]);
  const shown = events.filter((e) => (!participant || e.participantId === participant) && (!type || e.type === type));

  return (
    <section className="panel">
      <div className="toolbar">
        <h2>
          Events <span className="unit">(times in {timeZone})</span>
        </h2>
        <select value={participant} onChange={(e) => setParticipant(e.target.value)} aria-label="Events of participant">
          <option value="">every participant</option>
          {participants.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <select value={type} onChange={(e) => setType(e.target.value)} aria-label="Events of type">
          <option value="">every type</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <span className="muted">{shown.length > 500 ? `the last 500 of ${shown.length}` : `${shown.length} of ${events.length}`}</span>
      </div>
      {shown.length > 0 ? (
        <ol className="events" data-testid="events">
          {shown.slice(-500).map((e, k) => (
            <li key={`${e.ts}-${k}`}>
              <time>{formatTime(e.ts)}</time> <b style={{ color: colors.get(e.participantId) }}>{e.participantId}</b> {e.type}{' '}
              {e.detail && (
                <span className="muted" title={e.detail}>
                  {shortIds(e.detail)}
                </span>
              )}
            </li>
          ))}
        </ol>
      ) : (
        <div className="state empty small">{events.length ? 'No event matches the filter.' : 'No events recorded.'}</div>
      )}
    </section>
  );
}
