import type { SessionList } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiGet, apiSend } from '../lib/api.js';
import { currentCredentials } from '../lib/auth.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useAction, useLoad, useSubmit } from '../lib/hooks.js';
import { NewPassword } from '../components/NewPassword.js';

/** The person's own account: their password, and where they are signed in (each can be signed out). */
export function Account() {
  const credentials = currentCredentials();
  const fetchSessions = useCallback(async () => (await apiGet<SessionList>('/account/sessions')).sessions, []);
  const { data: sessions, error: loadError, reload } = useLoad(fetchSessions);
  const { act, error } = useAction(reload);
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [changed, setChanged] = useState(false);
  const change = useSubmit(async () => {
    await apiSend('POST', '/account/password', { current: current || '-', password });
    setChanged(true);
    setCurrent('');
    setPassword('');
    await reload();
  });
  if (credentials?.kind !== 'session') return <main>Signed in with an API key: there is no account to show.</main>;
  const { user } = credentials.me;
  return (
    <main>
      <h1>{user.name}</h1>
      <p className="muted">{user.email}</p>
      <section className="panel">
        <h2>{user.hasPassword ? 'Change your password' : 'Set a password'}</h2>
        {change.error && <ErrorBox error={change.error} />}
        {changed && <p role="status">Saved. Every other place you were signed in is signed out.</p>}
        <form onSubmit={change.submit} className="inline">
          {user.hasPassword && (
            <label>
              Current{' '}
              <input
                type="password"
                value={current}
                onChange={(e) => setCurrent(e.target.value)}
                autoComplete="current-password"
                required
              />
            </label>
          )}
          <NewPassword label="New" value={password} onChange={setPassword} />
          <button type="submit" disabled={change.busy}>
            Save
          </button>
        </form>
      </section>
      <section className="panel" data-testid="sessions">
        <h2>Where you are signed in</h2>
        <p className="muted">Times in {timeZone}.</p>
        {(error ?? loadError) && <ErrorBox error={(error ?? loadError)!} />}
        {!sessions && !loadError && <Loading what="your sessions" />}
        {sessions && (
          <table className="calls">
            <thead>
              <tr>
                <th>Browser</th>
                <th>From</th>
                <th>Signed in</th>
                <th>Last seen</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id}>
                  <td title={s.userAgent ?? ''}>
                    {(s.userAgent ?? 'unknown').slice(0, 60)} {s.current && <span className="badge live">this browser</span>}
                  </td>
                  <td>{s.ip ?? ''}</td>
                  <td>
                    {formatDateTime(s.createdAt)} ({s.method})
                  </td>
                  <td>{formatDateTime(s.lastSeenAt)}</td>
                  <td>
                    {!s.current && (
                      <button type="button" className="link" onClick={() => void act(() => apiSend('DELETE', `/account/sessions/${s.id}`))}>
                        Sign out
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
