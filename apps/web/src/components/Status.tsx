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
  // One block: `.state` lays out its items in a row, and a sentence with code in it is not items (it read as five columns).
  return (
    <div className="state empty" data-testid="empty-state">
      <div>{children}</div>
    </div>
  );
}

/**
 * A list's states, the same on every page: its error (with Try again where it can load again), loading
 * while there is nothing yet, `empty` when it holds no item, else `children` drawing the items.
 */
export function Listing<T>({
  items,
  error,
  what,
  empty,
  onRetry,
  children,
}: {
  items: readonly T[] | null | undefined;
  error: Error | null;
  /** What is loading, for "Loading …". */
  what: string;
  empty: ReactNode;
  onRetry?: () => void;
  children: (items: readonly T[]) => ReactNode;
}) {
  return (
    <>
      {error && <ErrorBox error={error} {...(onRetry ? { onRetry } : {})} />}
      {!items && !error && <Loading what={what} />}
      {items?.length === 0 && <Empty>{empty}</Empty>}
      {items && items.length > 0 && children(items)}
    </>
  );
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
