import { type ReactNode, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorBox } from '../components/Status.js';
import { apiSend } from '../lib/api.js';
import { setApiKey } from '../lib/auth.js';
import { useSubmit } from '../lib/hooks.js';
import { NewPassword } from '../components/NewPassword.js';

/** The frame of the pages one sees signed out. */
export function AuthPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="signin">
      <h1>{title}</h1>
      {children}
    </main>
  );
}

/** Email and password; or, for a program's key, the key. */
export function SignIn({ message }: { message?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const [withKey, setWithKey] = useState(false);
  const [sso, setSso] = useState(false);
  const navigate = useNavigate();
  // Where a single sign-on that went wrong comes back to; why, in a cookie only the server sets (the
  // address could carry any words a link's maker chose), read once.
  const [ssoError] = useState(() => (new URLSearchParams(window.location.search).has('sso_error') ? takeSsoError() : null));
  const startSso = useSubmit(async () => {
    const { url } = await apiSend<{ url: string }>('POST', '/auth/sso/start', { email: email.trim() });
    window.location.assign(url);
  });
  const { submit, busy, error } = useSubmit(async () => {
    await apiSend('POST', '/auth/sign-in', { email: email.trim(), password });
    // Signed in as themselves: no key a tab used before shows another project instead.
    setApiKey(null);
    navigate('/');
    window.location.reload();
  });
  return (
    <AuthPage title="Sign in to rtcscope">
      {message && <div className="state error">{message}</div>}
      {ssoError && <div className="state error">Single sign-on did not work: {ssoError}</div>}
      {(error ?? startSso.error) && <ErrorBox error={(error ?? startSso.error)!} />}
      <form onSubmit={sso ? startSso.submit : submit} className="stack">
        <label>
          Email <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="username" required autoFocus />
        </label>
        {!sso && (
          <label>
            Password{' '}
            <input
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
              required
            />
          </label>
        )}
        <button type="submit" className="primary" disabled={busy || startSso.busy}>
          {sso ? (startSso.busy ? 'Going to your company’s sign-in…' : 'Continue with single sign-on') : busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <button type="button" className="link" onClick={() => setSso(!sso)}>
        {sso ? 'Sign in with a password instead' : 'Sign in with single sign-on (SSO)'}
      </button>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link> · No account yet? <Link to="/sign-up">Sign up</Link> · A local install
        prints a one-time sign-in link when it starts.
      </p>
      {!withKey ? (
        <button type="button" className="link" onClick={() => setWithKey(true)}>
          Open a project with an API key instead
        </button>
      ) : (
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            setApiKey(key.trim());
            window.location.assign('/');
          }}
        >
          <input value={key} onChange={(e) => setKey(e.target.value)} placeholder="rk_…" aria-label="API key" />
          <button type="submit" disabled={!key.trim().startsWith('rk_')}>
            Open
          </button>
        </form>
      )}
    </AuthPage>
  );
}

/** A new account and its organization, of which it is the owner. */
export function SignUp() {
  const [form, setForm] = useState({ name: '', email: '', password: '', organization: '' });
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const { submit, busy, error } = useSubmit(async () => {
    await apiSend('POST', '/auth/sign-up', { ...form, email: form.email.trim() });
    window.location.assign('/organization');
  });
  return (
    <AuthPage title="Make an rtcscope account">
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} className="stack">
        <label>
          Your name <input value={form.name} onChange={set('name')} maxLength={100} autoComplete="name" required autoFocus />
        </label>
        <label>
          Email <input type="email" value={form.email} onChange={set('email')} autoComplete="username" required />
        </label>
        <NewPassword label="Password" value={form.password} onChange={(password) => setForm({ ...form, password })} />
        <label>
          Organization (your team or company) <input value={form.organization} onChange={set('organization')} maxLength={100} required />
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Making your account…' : 'Sign up'}
        </button>
      </form>
      <p>
        Have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthPage>
  );
}

/** The reason the server gave for a failed single sign-on, cleared once read; a general one when none is left. */
function takeSsoError(): string {
  const kept = /(?:^|;\s*)rtcscope_sso_error=([^;]*)/.exec(document.cookie)?.[1];
  document.cookie = 'rtcscope_sso_error=; Path=/sign-in; Max-Age=0; SameSite=Lax';
  return kept ? decodeURIComponent(kept) : 'start it again, or sign in with your password';
}
