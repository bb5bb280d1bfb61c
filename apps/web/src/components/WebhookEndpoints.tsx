import type { DeliveryLog, WebhookEndpoint, WebhookEndpointInput, WebhookEndpointList } from '@rtcscope/protocol';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { formatDateTime, formatNumber, timeZone } from '../lib/format.js';
import { useAction, useLive, useLoad, useSoon } from '../lib/hooks.js';
import { Listing } from './Status.js';

/** After a notification, when its first attempt has been made (deliveries are tried every second). */
const DELIVERY_SETTLES_MS = 1500;
/** How often the log is read again for retries, which no notification announces. */
const RETRIES_SEEN_MS = 5000;

/** An endpoint's delivery log: every attempt, its answer and time, newest first. */
function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const fetchLog = useCallback(
    async () => (await apiGet<DeliveryLog>(`/alerts/endpoints/${endpoint.id}/deliveries?limit=50`)).attempts,
    [endpoint.id],
  );
  const { data, error, reload } = useLoad(fetchLog);
  // Live: a notification's first attempt follows it within a second or two; retries come on their own.
  const soon = useSoon(reload, DELIVERY_SETTLES_MS);
  useLive({ alerts: true }, { notification: soon }, () => void reload());
  useEffect(() => {
    const t = setInterval(() => void reload(), RETRIES_SEEN_MS);
    return () => clearInterval(t);
  }, [reload]);
  return (
    <div data-testid={`deliveries-${endpoint.url}`}>
      <div className="toolbar">
        <b>Delivery log</b> <span className="muted">(updates by itself)</span>
        <button type="button" className="link" onClick={() => void reload()}>
          Refresh
        </button>
      </div>
      <Listing
        items={data}
        error={error}
        what="the delivery log"
        empty={'Nothing sent to it yet. "Send a test" on a rule sends one.'}
        onRetry={() => void reload()}
      >
        {(data) => (
          <table className="calls">
            <thead>
              <tr>
                <th>Time ({timeZone})</th>
                <th>Rule</th>
                <th>Notification</th>
                <th>Attempt</th>
                <th>Answer</th>
                <th>Took</th>
                <th>Now</th>
              </tr>
            </thead>
            <tbody>
              {data.map((a) => (
                <tr key={`${a.notificationId}-${a.attempt}`}>
                  <td>{formatDateTime(a.at)}</td>
                  <td>
                    {a.rule}
                    {a.callId && <div className="muted">{`call ${a.callId}${a.participantId ? `, ${a.participantId}` : ''}`}</div>}
                  </td>
                  <td>
                    {a.state} <code className="muted">{a.notificationId.slice(0, 8)}</code>
                  </td>
                  <td>{a.attempt}</td>
                  <td className={a.statusCode !== null && a.statusCode < 300 ? '' : 'error-text'}>
                    {a.statusCode !== null ? `HTTP ${a.statusCode}` : a.error}
                  </td>
                  <td>{formatNumber(a.durationMs, 'ms', 0)}</td>
                  <td>
                    <span className={`badge ${a.delivery === 'delivered' ? 'done' : a.delivery === 'failed' ? 'failed' : 'queued'}`}>
                      {a.delivery === 'pending' ? 'retrying' : a.delivery}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
    </div>
  );
}

/** Where alerts are posted: each endpoint's URL, body format, signing secret and delivery log; a new one. */
export function WebhookEndpoints() {
  const fetchEndpoints = useCallback(async () => (await apiGet<WebhookEndpointList>('/alerts/endpoints')).endpoints, []);
  const { data: endpoints, error: loadError, reload } = useLoad(fetchEndpoints);
  const { act, error: actionError } = useAction(reload);
  const [open, setOpen] = useState<string | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [draft, setDraft] = useState<WebhookEndpointInput>({ url: '', format: 'json', enabled: true });
  const error = actionError ?? loadError;
  const inputOf = (e: WebhookEndpoint): WebhookEndpointInput => ({ url: e.url, format: e.format, enabled: e.enabled });

  return (
    <section className="panel" data-testid="webhook-endpoints">
      <h2>Webhooks</h2>
      <p className="muted">
        Every notification is POSTed to each endpoint that is on, signed with its secret (docs/alerts.md says how to check it), and retried
        for 24 hours until it answers 2xx.
      </p>
      <Listing items={endpoints} error={error} what="the webhooks" empty="No webhooks yet: notifications show only here. Add one below.">
        {(endpoints) => (
          <table className="calls">
            <thead>
              <tr>
                <th>URL</th>
                <th>Body</th>
                <th>Signing secret</th>
                <th>On</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {endpoints.flatMap((e) => [
                <tr key={e.id} data-testid={`endpoint-${e.url}`}>
                  <td>
                    <code>{e.url}</code>
                  </td>
                  <td>{e.format === 'slack' ? 'Slack message' : 'JSON'}</td>
                  <td>
                    {shown === e.id ? (
                      <code>{e.secret}</code>
                    ) : (
                      <button type="button" className="link" onClick={() => setShown(e.id)}>
                        Show
                      </button>
                    )}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      checked={e.enabled}
                      aria-label={`${e.url} on`}
                      onChange={(ev) =>
                        void act(() => apiSend('PUT', `/alerts/endpoints/${e.id}`, { ...inputOf(e), enabled: ev.target.checked }))
                      }
                    />
                  </td>
                  <td>
                    <button type="button" className="link" onClick={() => setOpen(open === e.id ? null : e.id)}>
                      {open === e.id ? 'Hide log' : 'Delivery log'}
                    </button>
                    <button
                      type="button"
                      className="link"
                      onClick={() =>
                        window.confirm(`Delete the webhook ${e.url}? Deliveries still pending to it are dropped.`) &&
                        void act(() => apiSend('DELETE', `/alerts/endpoints/${e.id}`))
                      }
                    >
                      Delete
                    </button>
                  </td>
                </tr>,
                ...(open === e.id
                  ? [
                      <tr key={`${e.id}-log`}>
                        <td colSpan={5}>
                          <Deliveries endpoint={e} />
                        </td>
                      </tr>,
                    ]
                  : []),
              ])}
            </tbody>
          </table>
        )}
      </Listing>
      <form
        className="inline"
        onSubmit={(ev) => {
          ev.preventDefault();
          void act(() => apiSend('POST', '/alerts/endpoints', { ...draft, url: draft.url.trim() })).then(
            (ok) => ok && setDraft({ ...draft, url: '' }),
          );
        }}
      >
        <label>
          URL{' '}
          <input
            type="url"
            required
            value={draft.url}
            placeholder="https://example.com/rtcscope-alerts"
            size={44}
            onChange={(e) => setDraft({ ...draft, url: e.target.value })}
          />
        </label>
        <label>
          Body{' '}
          <select value={draft.format} onChange={(e) => setDraft({ ...draft, format: e.target.value as 'json' | 'slack' })}>
            <option value="json">JSON (documented)</option>
            <option value="slack">Slack message</option>
          </select>
        </label>
        <button type="submit" className="primary">
          Add webhook
        </button>
      </form>
    </section>
  );
}
