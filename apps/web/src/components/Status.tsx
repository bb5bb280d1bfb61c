import type { ReactNode } from 'react';
import { useLiveConnected } from '../lib/hooks.js';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state" role="status">
      <span className="spinner" aria-hidden /> Loading {what}…
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

export function ErrorBox({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  return (
    <div className="state error" role="alert">
      {error.message}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function LiveIndicator() {
  const connected = useLiveConnected();
  return (
    <span className={connected ? 'live-dot on' : 'live-dot off'} title={connected ? 'Live updates on' : 'Reconnecting to the server…'}>
      {connected ? 'live' : 'reconnecting…'}
    </span>
  );
}
