import type { ApiKeyCreated, ApiKeyInfo, ApiKeyList } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { setApiKey } from '../lib/auth.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';
import { NameForm } from './NameForm.js';
import { ErrorBox, Loading } from './Status.js';

/** The project's API keys: who has one, when it was last used, a new one (shown once), and revoking one. */
export function ApiKeys() {
  const fetchKeys = useCallback(async () => (await apiGet<ApiKeyList>('/project/keys')).keys, []);
  const { data: keys, error: loadError, reload: load } = useLoad(fetchKeys);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [actionError, setError] = useState<Error | null>(null);
  const error = actionError ?? loadError;

  const add = async (name: string) => {
    try {
      setCreated(await apiSend<ApiKeyCreated>('POST', '/project/keys', { name }));
      setError(null);
      await load();
      return true;
    } catch (err) {
      setError(err as Error);
      return false;
    }
  };
  const revoke = async (k: ApiKeyInfo) => {
    const warning = k.current ? ' This browser signed in with it: you will be signed out.' : '';
    if (!window.confirm(`Revoke API key "${k.name}"? Whoever uses it loses access at once.${warning}`)) return;
    try {
      await apiSend('DELETE', `/project/keys/${k.id}`);
      if (k.current) {
        setApiKey(null);
        return window.location.reload();
      }
      if (created?.key.id === k.id) setCreated(null);
      setError(null);
      await load();
    } catch (err) {
      setError(err as Error);
    }
  };

  return (
    <section className="panel" data-testid="api-keys">
      <h2>API keys</h2>
      <p className="muted">
        An API key opens this dashboard and the REST API (<code>Authorization: Bearer rk_…</code>) for this project. Only a hash of each is
        kept: a key is shown once, when it is made. Times in {timeZone}.
      </p>
      {error && <ErrorBox error={error} />}
      {!keys && !error && <Loading what="the API keys" />}
      {keys && (
        <table className="calls">
          <thead>
            <tr>
              <th>Name</th>
              <th>Made</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-testid={`api-key-${k.name}`}>
                <td>
                  {k.name} {k.current && <span className="badge live">this browser</span>}
                </td>
                <td>{formatDateTime(k.createdAt)}</td>
                <td>{k.lastUsedAt === null ? 'never' : formatDateTime(k.lastUsedAt)}</td>
                <td>
                  <button
                    type="button"
                    className="link"
                    onClick={() => void revoke(k)}
                    disabled={keys.length === 1}
                    title={keys.length === 1 ? 'The last key cannot be revoked: make another first' : undefined}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NameForm label="New key for" placeholder="e.g. grafana, alice" maxLength={100} button="Make key" onSubmit={add} />
      {created && (
        <div className="token" data-testid="new-api-key">
          Key for <b>{created.key.name}</b>, shown only now: <code>{created.apiKey}</code>. Sign in with it at{' '}
          <code>
            {window.location.origin}/#key={created.apiKey}
          </code>
        </div>
      )}
    </section>
  );
}
