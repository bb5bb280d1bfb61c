import type { SsoConnection, SsoConnectionInfo } from '@rtcscope/protocol';
import { type FormEvent, useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { ErrorBox, Loading } from './Status.js';

const EMPTY: SsoConnection = { issuer: '', clientId: '', clientSecret: '', emailDomain: '', defaultRole: 'viewer' };

/** The organization's single sign-on (OpenID Connect): its provider, the domain it signs on, the role of first arrivals. */
export function SingleSignOn({ orgId }: { orgId: string }) {
  const path = `/orgs/${orgId}/sso`;
  const fetchSso = useCallback(() => apiGet<SsoConnectionInfo>(path), [path]);
  const { data, error: loadError, reload } = useLoad(fetchSso);
  const { act, error } = useAction(reload);
  const [draft, setDraft] = useState<SsoConnection | null>(null);
  const set = (field: keyof SsoConnection) => (e: { target: { value: string } }) => setDraft({ ...draft!, [field]: e.target.value });
  const save = (e: FormEvent) => {
    e.preventDefault();
    void act(() => apiSend('PUT', path, { ...draft!, emailDomain: draft!.emailDomain.trim().toLowerCase() })).then(
      (ok) => ok && setDraft(null),
    );
  };
  return (
    <section className="panel" data-testid="sso">
      <h2>Single sign-on</h2>
      {(error ?? loadError) && <ErrorBox error={(error ?? loadError)!} />}
      {!data && !loadError && <Loading what="single sign-on" />}
      {data && (
        <>
          <p className="muted">
            People whose email is in the domain sign in at your OpenID Connect provider; someone who arrives for the first time gets an
            account with the default role. Register this redirect URI at the provider: <code>{data.redirectUri}</code>
          </p>
          {data.connection && !draft && (
            <p>
              <b>{data.connection.emailDomain}</b> signs in at <code>{data.connection.issuer}</code> (client {data.connection.clientId});
              first arrivals are <b>{data.connection.defaultRole}</b>.{' '}
              <button type="button" className="link" onClick={() => setDraft({ ...data.connection!, clientSecret: '' })}>
                Change…
              </button>{' '}
              <button
                type="button"
                className="link danger"
                onClick={() =>
                  window.confirm('Turn single sign-on off? Its people then sign in with passwords (or a reset link).') &&
                  void act(() => apiSend('DELETE', path))
                }
              >
                Turn off
              </button>
            </p>
          )}
          {data.domainProof && !draft && (
            <div className={data.domainProof.verifiedAt ? 'muted' : 'warning'} data-testid="sso-domain-proof">
              {data.domainProof.verifiedAt ? (
                <>
                  {data.connection!.emailDomain} was proved this organization's on {new Date(data.domainProof.verifiedAt).toLocaleString()}.
                </>
              ) : (
                <>
                  <b>Nobody signs on yet:</b> prove {data.connection!.emailDomain} is yours. Publish a DNS TXT record at{' '}
                  <code>{data.domainProof.record}</code> with the text <code>{data.domainProof.value}</code>, then{' '}
                  <button type="button" onClick={() => void act(() => apiSend('POST', `${path}/verify`))}>
                    Check the DNS record
                  </button>
                </>
              )}
            </div>
          )}
          {!data.connection && !draft && (
            <button type="button" onClick={() => setDraft(EMPTY)}>
              Set up single sign-on
            </button>
          )}
          {draft && (
            <form onSubmit={save} className="stack">
              <label>
                Issuer URL <input value={draft.issuer} onChange={set('issuer')} placeholder="https://login.example.com" required />
              </label>
              <label>
                Client id <input value={draft.clientId} onChange={set('clientId')} required />
              </label>
              <label>
                Client secret{' '}
                <input type="password" value={draft.clientSecret} onChange={set('clientSecret')} autoComplete="off" required />
              </label>
              <label>
                Email domain <input value={draft.emailDomain} onChange={set('emailDomain')} placeholder="example.com" required />
              </label>
              <label>
                Role of first arrivals{' '}
                <select value={draft.defaultRole} onChange={set('defaultRole')}>
                  <option>viewer</option>
                  <option>member</option>
                  <option>admin</option>
                </select>
              </label>
              <div>
                <button type="submit" className="primary">
                  Save (checks the provider first)
                </button>{' '}
                <button type="button" className="link" onClick={() => setDraft(null)}>
                  Cancel
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </section>
  );
}
