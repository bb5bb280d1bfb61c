import type { ProjectInfo } from '@rtcscope/protocol';
import { useEffect, useState } from 'react';
import { acceptOfferedKey } from '../lib/auth.js';

/**
 * A link brought an API key: it would show the key's project instead of the person's own (signed in as
 * `email`), or put a visitor nobody signed in into it, so they are asked first (anyone can send a link).
 * The key's project is named when the key opens one; nothing is kept until they accept.
 */
export function KeyOffer({ apiKey, email, onDismiss }: { apiKey: string; email: string | null; onDismiss?: () => void }) {
  const [project, setProject] = useState<string | null | undefined>(undefined);
  const [dismissed, setDismissed] = useState(false);
  useEffect(() => {
    fetch('/api/v1/project', { headers: { authorization: `Bearer ${apiKey}` } })
      .then(async (res) => setProject(res.ok ? ((await res.json()) as ProjectInfo).name : null))
      .catch(() => setProject(null));
  }, [apiKey]);
  if (dismissed) return null;
  return (
    <div className="warning" role="alertdialog" aria-label="Open with an API key?" data-testid="key-offer">
      {project === undefined
        ? 'A link you opened carries an API key: checking which project it opens…'
        : project === null
          ? 'A link you opened carries an API key that opens no project (revoked, or not a read key). It was not used.'
          : email
            ? `A link you opened carries an API key for the project "${project}". Using it shows that project instead of yours (${email}) until you sign out: only use it if you trust whoever sent the link.`
            : `A link you opened carries an API key for the project "${project}". Opening it shows that project, and what you import or set goes to it: only open it if you trust whoever sent the link.`}{' '}
      {project && (
        <button type="button" onClick={() => acceptOfferedKey(apiKey)}>
          {email ? 'Use the key' : `Open "${project}" with this key`}
        </button>
      )}{' '}
      <button
        type="button"
        className="link"
        onClick={() => {
          setDismissed(true);
          onDismiss?.();
        }}
      >
        {email ? (project ? 'Stay as I am' : 'Dismiss') : 'Sign in instead'}
      </button>
    </div>
  );
}
