import type { LiveKitSettingsInfo } from '@rtcscope/protocol';
import { type FormEvent, useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { formatDateTime } from '../lib/format.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { Empty, ErrorBox, Loading } from './Status.js';

/**
 * The key the project's LiveKit server signs its webhooks with, and where it is to post them: its rooms'
 * members and tracks then show on each call page beside what their SDKs measured. The secret is asked
 * each time it is set and never shown.
 */
export function LiveKitWebhooks() {
  const fetchSettings = useCallback(() => apiGet<LiveKitSettingsInfo>('/project/livekit'), []);
  const { data, error: loadError, reload } = useLoad(fetchSettings);
  const { act, busy, error } = useAction(reload);
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const livekit = data?.livekit;
  const url = data ? `${window.location.origin}${data.webhookPath}` : '';

  const save = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      await apiSend('PUT', '/project/livekit', { apiKey, apiSecret });
      setApiSecret('');
    });
  };
  const remove = () => {
    if (!window.confirm("Remove the LiveKit key? LiveKit's webhooks are refused from then on.")) return;
    void act(() => apiSend('DELETE', '/project/livekit'));
  };

  return (
    <section className="panel" data-testid="livekit-webhooks">
      <h2>LiveKit webhooks</h2>
      <p className="muted">
        Your LiveKit server reports who joins and leaves its rooms and what they publish. Posted here, it shows on each call page as the
        SFU’s view. Each post is checked against the key below: LiveKit signs it with the key its config’s <code>webhook.api_key</code>{' '}
        names.
      </p>
      {loadError && <ErrorBox error={loadError} onRetry={() => void reload()} />}
      {!data && !loadError && <Loading what="the LiveKit key" />}
      {data && !livekit && <Empty>No key set: LiveKit’s webhooks are refused.</Empty>}
      {livekit && (
        <p data-testid="livekit-set">
          Key <code className="chip">{livekit.apiKey}</code> set {formatDateTime(livekit.updatedAt)}.{' '}
          <button type="button" className="link" onClick={remove} disabled={busy}>
            Remove
          </button>
        </p>
      )}
      {data && (
        <pre className="small" data-testid="livekit-config">
          {`# livekit.yaml\nwebhook:\n  api_key: ${livekit?.apiKey ?? '<the key below>'}\n  urls:\n    - ${url}`}
        </pre>
      )}
      {error && <ErrorBox error={error} />}
      <form className="fields" onSubmit={save}>
        <label>
          API key <input value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="APIxxxxxxxx" maxLength={128} required />
        </label>
        <label>
          Its secret (at least 32 characters){' '}
          <input
            type="password"
            value={apiSecret}
            onChange={(e) => setApiSecret(e.target.value)}
            minLength={32}
            maxLength={256}
            autoComplete="off"
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {livekit ? 'Replace' : 'Save'}
        </button>
      </form>
    </section>
  );
}
