import { useState } from 'react';
import { setApiKey } from '../lib/auth.js';

/** Asked when no API key is stored: the start command prints a link that fills it in. */
export function SignIn({ message }: { message?: string }) {
  const [key, setKey] = useState('');
  return (
    <main className="signin">
      <h1>Sign in to rtcscope</h1>
      {message && <div className="state error">{message}</div>}
      <p>
        Paste your project's API key (it starts with <code>rk_</code>). A local install prints a dashboard link with the key when it
        starts.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setApiKey(key.trim());
          window.location.reload();
        }}
      >
        <input value={key} onChange={(e) => setKey(e.target.value)} placeholder="rk_…" aria-label="API key" autoFocus />
        <button type="submit" className="primary" disabled={!key.trim().startsWith('rk_')}>
          Sign in
        </button>
      </form>
    </main>
  );
}
