import type { AuditEvent, AuditList } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { apiGet, apiGetText } from '../lib/api.js';
import { download } from '../lib/download.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { Empty, ErrorBox, Loading } from './Status.js';

/** The organization's audit log: who changed what, from where; filtered, paged, exported. */
export function AuditLog({ orgId }: { orgId: string }) {
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [older, setOlder] = useState<AuditEvent[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const query = useCallback(
    (extra: Record<string, string> = {}) =>
      new URLSearchParams({
        ...(action.trim() ? { action: action.trim() } : {}),
        ...(actor.trim() ? { actor: actor.trim() } : {}),
        ...extra,
      }).toString(),
    [action, actor],
  );
  const fetchLog = useCallback(async () => {
    const page = await apiGet<AuditList>(`/orgs/${orgId}/audit?${query()}`);
    setOlder([]);
    setNext(page.next);
    return page.events;
  }, [orgId, query]);
  const { data: events, error: loadError } = useLoad(fetchLog, 300);
  const { act, error } = useAction();
  const more = () =>
    act(async () => {
      const page = await apiGet<AuditList>(`/orgs/${orgId}/audit?${query({ before: String(next) })}`);
      setOlder((o) => [...o, ...page.events]);
      setNext(page.next);
    });
  const exportAs = (format: 'csv' | 'jsonl') =>
    act(async () =>
      download(
        `audit-log.${format}`,
        format === 'csv' ? 'text/csv' : 'application/x-ndjson',
        await apiGetText(`/orgs/${orgId}/audit/export?${query({ format })}`),
      ),
    );
  const all = [...(events ?? []), ...older];
  return (
    <section className="panel" data-testid="audit-log">
      <h2>Audit log</h2>
      <p className="muted">
        Every change to keys, members, roles, retention, alerts and projects, and every sign-in, kept and never edited. Times in {timeZone}.
      </p>
      <div className="toolbar">
        <label>
          Action <input value={action} onChange={(e) => setAction(e.target.value)} placeholder="e.g. member, key.created" size={26} />
        </label>
        <label>
          By <input value={actor} onChange={(e) => setActor(e.target.value)} placeholder="email or key name" size={20} />
        </label>
        <button type="button" onClick={() => void exportAs('csv')}>
          Export CSV
        </button>
        <button type="button" onClick={() => void exportAs('jsonl')}>
          Export JSON lines
        </button>
      </div>
      {(error ?? loadError) && <ErrorBox error={(error ?? loadError)!} />}
      {!events && !loadError && <Loading what="the audit log" />}
      {events && all.length === 0 && <Empty>Nothing matches these filters.</Empty>}
      {all.length > 0 && (
        <table className="calls">
          <thead>
            <tr>
              <th>Time</th>
              <th>By</th>
              <th>Action</th>
              <th>On</th>
              <th>Detail</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            {all.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.at)}</td>
                <td>
                  {e.actor.label}
                  {e.actor.kind === 'key' && <span className="badge">API key</span>}
                </td>
                <td>{e.action}</td>
                <td>{e.target ?? ''}</td>
                <td className="muted">{Object.keys(e.detail).length ? JSON.stringify(e.detail) : ''}</td>
                <td className="muted">{e.ip ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next !== null && (
        <button type="button" onClick={() => void more()}>
          Older events
        </button>
      )}
    </section>
  );
}
