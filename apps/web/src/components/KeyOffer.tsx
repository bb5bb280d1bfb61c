import type { ProjectInfo } from '@rtcscope/protocol';
import { useEffect, useState } from 'react';
import { acceptOfferedKey } from '../lib/auth.js';

/**
 * A link brought an API key while a person is signed in: it would show the key's project instead of
 * theirs, so they are asked first (anyone can send a link). The key's project is named when the key
 * opens one.
 */
export function KeyOffer({ apiKey, email }: { apiKey: string; email: string }) {
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
          : `A link you opened carries an API key for the project "${project}". Using it shows that project instead of yours (${email}) until you sign out: only use it if you trust whoever sent the link.`}{' '}
      {project && (
        <button type="button" onClick={() => acceptOfferedKey(apiKey)}>
          Use the key
        </button>
      )}{' '}
      <button type="button" className="link" onClick={() => setDismissed(true)}>
        {project ? 'Stay as I am' : 'Dismiss'}
      </button>
    </div>
  );
}
