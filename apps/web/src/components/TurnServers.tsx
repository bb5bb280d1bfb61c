import type { TurnSettingsInfo } from '@rtcscope/protocol';
import { type FormEvent, useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { formatDateTime } from '../lib/format.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { Empty, ErrorBox, Loading } from './Status.js';

const LIFETIMES = [
  [60, '1 minute'],
  [300, '5 minutes'],
  [600, '10 minutes'],
] as const;

/**
 * The project's TURN servers: what browsers relay through when a direct path is blocked, with
 * credentials rtcscope signs with the secret the servers share and that expire. The secret is asked
 * each time they are set and never shown.
 */
export function TurnServers() {
  const fetchTurn = useCallback(() => apiGet<TurnSettingsInfo>('/project/turn'), []);
  const { data, error: loadError, reload } = useLoad(fetchTurn);
  const { act, busy, error } = useAction(reload);
  const [urls, setUrls] = useState('');
  const [secret, setSecret] = useState('');
  const [ttlS, setTtlS] = useState(300);
  const turn = data?.turn;

  const save = (e: FormEvent) => {
    e.preventDefault();
    const list = urls.split(/\s+/).filter(Boolean);
    void act(async () => {
      await apiSend('PUT', '/project/turn', { urls: list, secret, ttlS });
      setSecret('');
    });
  };
  const remove = () => {
    if (!window.confirm('Remove the TURN servers? Browsers behind firewalls that block direct paths can no longer connect through them.'))
      return;
    void act(() => apiSend('DELETE', '/project/turn'));
  };

  return (
    <section className="panel" data-testid="turn-servers">
      <h2>TURN servers</h2>
      <p className="muted">
        Browsers relay media through these when a firewall blocks a direct path. rtcscope hands them credentials signed with the secret your
        TURN server shares (coturn: <code>use-auth-secret</code>, <code>static-auth-secret</code>), good for the time chosen below: no
        lasting password reaches a browser.
      </p>
      {loadError && <ErrorBox error={loadError} onRetry={() => void reload()} />}
      {!data && !loadError && <Loading what="the TURN servers" />}
      {data && !turn && <Empty>None set: browsers get no relay from rtcscope.</Empty>}
      {turn && (
        <p data-testid="turn-set">
          {turn.urls.map((u) => (
            <code key={u} className="chip">
              {u}
            </code>
          ))}{' '}
          credentials good for {LIFETIMES.find(([s]) => s === turn.ttlS)?.[1] ?? `${turn.ttlS} s`}; set {formatDateTime(turn.updatedAt)}.{' '}
          <button type="button" className="link" onClick={remove} disabled={busy}>
            Remove
          </button>
        </p>
      )}
      {error && <ErrorBox error={error} />}
      <form className="fields" onSubmit={save}>
        <label>
          Servers, one per line{' '}
          <textarea
            value={urls}
            onChange={(e) => setUrls(e.target.value)}
            rows={3}
            placeholder={'turn:turn.example.com:3478?transport=udp\nturns:turn.example.com:5349?transport=tcp'}
            required
          />
        </label>
        <label>
          Shared secret (at least 16 characters){' '}
          <input
            type="password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            minLength={16}
            maxLength={256}
            autoComplete="off"
            required
          />
        </label>
        <label>
          Credentials last{' '}
          <select value={ttlS} onChange={(e) => setTtlS(Number(e.target.value))}>
            {LIFETIMES.map(([s, label]) => (
              <option key={s} value={s}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          {turn ? 'Replace' : 'Save'}
        </button>
      </form>
    </section>
  );
}
