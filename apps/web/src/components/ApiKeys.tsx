import { type ApiKeyCreated, type ApiKeyInfo, type ApiKeyList, type Scope, SCOPES } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { setApiKey } from '../lib/auth.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { NameForm } from './NameForm.js';
import { ErrorBox, Listing } from './Status.js';

const SCOPE_HELP: Record<Scope, string> = {
  ingest: 'import recordings',
  read: 'read calls, insights, alerts, the lab',
  lab: 'run lab campaigns, add agents',
  admin: 'keys, retention, alert rules and webhooks',
};

/** The project's API keys for programs: their scopes, when each was last used, a new one (shown once), and revoking one. */
export function ApiKeys() {
  const fetchKeys = useCallback(async () => (await apiGet<ApiKeyList>('/project/keys')).keys, []);
  const { data: keys, error: loadError, reload: load } = useLoad(fetchKeys);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const { act, error: actionError } = useAction(load);

  const add = (name: string) => act(async () => setCreated(await apiSend<ApiKeyCreated>('POST', '/project/keys', { name, scopes })));
  const revoke = async (k: ApiKeyInfo) => {
    const warning = k.current ? ' This browser opened the project with it: it will be signed out.' : '';
    if (!window.confirm(`Revoke API key "${k.name}"? Whoever uses it loses access at once.${warning}`)) return;
    await act(async () => {
      await apiSend('DELETE', `/project/keys/${k.id}`);
      if (k.current) {
        setApiKey(null);
        return window.location.reload();
      }
      if (created?.key.id === k.id) setCreated(null);
    });
  };

  return (
    <section className="panel" data-testid="api-keys">
      <h2>API keys</h2>
      <p className="muted">
        An API key lets a program use the REST API (<code>Authorization: Bearer rk_…</code>) for this project, with the scopes it was given.
        Only a hash of each is kept: a key is shown once, when it is made. Times in {timeZone}.
      </p>
      {actionError && <ErrorBox error={actionError} />}
      <Listing items={keys} error={loadError} what="the API keys" empty="No API keys: make one below.">
        {(keys) => (
          <table className="calls">
            <thead>
              <tr>
                <th>Name</th>
                <th>Scopes</th>
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
                  <td>{k.scopes.join(', ')}</td>
                  <td>{formatDateTime(k.createdAt)}</td>
                  <td>{k.lastUsedAt === null ? 'never' : formatDateTime(k.lastUsedAt)}</td>
                  <td>
                    <button type="button" className="link" onClick={() => void revoke(k)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
      <fieldset className="inline">
        <legend>Scopes of a new key</legend>
        {SCOPES.map((s) => (
          <label key={s} title={SCOPE_HELP[s]}>
            <input
              type="checkbox"
              checked={scopes.includes(s)}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
            />{' '}
            {s} <span className="muted">({SCOPE_HELP[s]})</span>
          </label>
        ))}
      </fieldset>
      <NameForm label="New key for" placeholder="e.g. grafana, ci" maxLength={100} button="Make key" onSubmit={add} />
      {created && (
        <div className="token" data-testid="new-api-key">
          Key for <b>{created.key.name}</b> ({created.key.scopes.join(', ')}), shown only now: <code>{created.apiKey}</code>
        </div>
      )}
    </section>
  );
}
