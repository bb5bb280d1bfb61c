import type { AlertNotification, NotificationList as List } from '@rtcscope/protocol';
import { useCallback } from 'react';
import { Link } from 'react-router';
import { apiGet } from '../lib/api.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useLive, useLoad } from '../lib/hooks.js';
import { Listing } from './Status.js';

const BADGE = { firing: 'failed', resolved: 'done', ended: 'ended', test: 'queued' } as const;

/** Alerts fired, resolved and ended (their participant left or call ended while they held), and tests, newest first; new ones appear as they are made. */
export function NotificationList() {
  const fetchList = useCallback(async () => (await apiGet<List>('/alerts/notifications?limit=100')).notifications, []);
  const { data, error, reload, setData } = useLoad(fetchList);
  useLive(
    { alerts: true },
    { notification: (n: AlertNotification) => setData((list) => (list && !list.some((o) => o.id === n.id) ? [n, ...list] : list)) },
    () => void reload(),
  );
  return (
    <section className="panel" data-testid="notifications">
      <h2>Notifications</h2>
      <Listing
        items={data}
        error={error}
        what="the notifications"
        empty="Nothing has fired yet. New alerts appear here as they fire, without reloading."
        onRetry={() => void reload()}
      >
        {(data) => (
          <table className="calls">
            <thead>
              <tr>
                <th>Time ({timeZone})</th>
                <th />
                <th>Rule</th>
                <th>What</th>
              </tr>
            </thead>
            <tbody>
              {data.map((n) => (
                <tr key={n.id} data-testid="notification">
                  <td>{formatDateTime(n.at)}</td>
                  <td>
                    <span className={`badge ${BADGE[n.state]}`}>{n.state}</span>
                  </td>
                  <td>{n.rule.name}</td>
                  <td>
                    {n.alert.summary}
                    {n.alert.callId !== null && (
                      <>
                        {' '}
                        <Link to={`/calls/${encodeURIComponent(n.alert.callId)}`}>open the call</Link>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
    </section>
  );
}
