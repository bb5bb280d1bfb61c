import type { InvitationPreview } from '@rtcscope/protocol';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiSend } from '../lib/api.js';
import { rememberProject } from '../lib/auth.js';
import { AuthPage } from './SignIn.js';
import { useSubmit } from '../lib/hooks.js';
import { NewPassword } from '../components/NewPassword.js';

/**
 * The token a link carried in its fragment (never sent to the server with the page), taken off the
 * address bar; a project it names (the start command's link names its local project) is the one shown next.
 */
function useLinkToken(): string | null {
  const [token] = useState(() => {
    const hash = window.location.hash;
    const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(hash);
    const project = /&project=([0-9a-f-]{36})\b/.exec(hash);
    if (project) rememberProject(project[1]!);
    if (match) history.replaceState(null, '', window.location.pathname);
    return match?.[1] ?? null;
  });
  return token;
}

const NO_TOKEN = new Error('This link is incomplete: open it exactly as you received it.');

/** The start command's one-time link: signs in, then opens the dashboard. */
export function SignInLink() {
  const token = useLinkToken();
  const [error, setError] = useState<Error | null>(token ? null : NO_TOKEN);
  useEffect(() => {
    if (!token) return;
    apiSend('POST', '/auth/link', { token })
      .then(() => window.location.assign('/'))
      .catch((err: Error) => setError(err));
  }, [token]);
  return (
    <AuthPage title="Signing you in">
      {error ? (
        <>
          <ErrorBox error={error} />
          <p>
            <Link to="/sign-in">Sign in another way</Link>
          </p>
        </>
      ) : (
        <Loading what="your account" />
      )}
    </AuthPage>
  );
}

/** An invitation: who invites to what, then a new account or the existing one's password. */
export function Invite() {
  const token = useLinkToken();
  const [preview, setPreview] = useState<InvitationPreview | null>(null);
  const [loadError, setLoadError] = useState<Error | null>(token ? null : NO_TOKEN);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    if (!token) return;
    apiSend<InvitationPreview>('POST', '/auth/invitations/preview', { token })
      .then(setPreview)
      .catch((err: Error) => setLoadError(err));
  }, [token]);
  const { submit, busy, error } = useSubmit(async () => {
    await apiSend('POST', '/auth/invitations/accept', preview?.account ? { token, password } : { token, name, password });
    window.location.assign('/');
  });
  if (loadError) return <AuthPage title="Invitation">{<ErrorBox error={loadError} />}</AuthPage>;
  if (!preview) return <AuthPage title="Invitation">{<Loading what="the invitation" />}</AuthPage>;
  return (
    <AuthPage title={`Join ${preview.organization}`}>
      <p>
        You are invited to <b>{preview.organization}</b> on rtcscope as <b>{preview.role}</b>, with the address <b>{preview.email}</b>.
      </p>
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} className="stack">
        {!preview.account && (
          <label>
            Your name{' '}
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="name" required autoFocus />
          </label>
        )}
        {preview.account ? (
          <label>
            Your password{' '}
            <input
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              maxLength={256}
              autoComplete="current-password"
              required
            />
          </label>
        ) : (
          <NewPassword label="Choose a password" value={password} onChange={setPassword} />
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Joining…' : `Join ${preview.organization}`}
        </button>
      </form>
    </AuthPage>
  );
}

/** A password-reset link: a new password, which also ends every other session of the account. */
export function ResetPassword() {
  const token = useLinkToken();
  const [password, setPassword] = useState('');
  const { submit, busy, error } = useSubmit(async () => {
    await apiSend('POST', '/auth/password-reset', { token, password });
    window.location.assign('/');
  });
  return (
    <AuthPage title="Choose a new password">
      {!token && <ErrorBox error={NO_TOKEN} />}
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} className="stack">
        <NewPassword label="New password" value={password} onChange={setPassword} autoFocus />
        <button type="submit" className="primary" disabled={busy || !token}>
          {busy ? 'Saving…' : 'Set the password and sign in'}
        </button>
      </form>
      <p className="muted">Every other place your account is signed in is signed out.</p>
    </AuthPage>
  );
}

/** Asks for a reset link by mail (where the server sends mail; otherwise an admin makes one). */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { submit, busy, error } = useSubmit(async () => {
    await apiSend('POST', '/auth/password-reset/request', { email: email.trim() });
    setSent(true);
  });
  return (
    <AuthPage title="Reset your password">
      {error && <ErrorBox error={error} />}
      {sent ? (
        <p role="status">If {email} has an account, a link to reset its password is on its way. It works once, within an hour.</p>
      ) : (
        <form onSubmit={submit} className="stack">
          <label>
            Email <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="username" required autoFocus />
          </label>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Sending…' : 'Mail me a reset link'}
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthPage>
  );
}
