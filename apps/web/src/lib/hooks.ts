import type { LiveServerEvents, LiveSubscribe } from '@rtcscope/protocol';
import { type Dispatch, type FormEvent, type SetStateAction, useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { setApiKey } from './auth.js';
import { liveSocket } from './live.js';
import { newestWins } from './newest.js';

export interface Loaded<T> {
  /** The newest load's answer; null until the first arrives. */
  data: T | null;
  /** The newest load's error, until a later load succeeds. */
  error: Error | null;
  /** Loads again (live updates and "Try again" call it). */
  reload: () => Promise<void>;
  /** For what live updates change between loads. */
  setData: Dispatch<SetStateAction<T | null>>;
}

/**
 * Loads with `fetch` when the page opens (after `delayMs`, to let typing settle) and whenever `fetch`
 * changes, and again on `reload()`. Answers need not arrive in order: only the newest load's is
 * applied, since an older one applied last would show stale data for good (a call still "live" after
 * the event that it ended was handled).
 */
export function useLoad<T>(fetch: () => Promise<T>, delayMs = 0): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [begin] = useState(newestWins);
  const reload = useCallback(async () => {
    const isNewest = begin();
    try {
      const value = await fetch();
      if (!isNewest()) return;
      setData(value);
      setError(null);
    } catch (err) {
      if (isNewest()) setError(err as Error);
    }
  }, [fetch, begin]);
  useEffect(() => {
    const t = setTimeout(() => void reload(), delayMs);
    return () => clearTimeout(t);
  }, [reload, delayMs]);
  return { data, error, reload, setData };
}

/** A function that runs `task` `ms` after its last call (a burst of changes makes one reload); nothing after unmount. */
export function useSoon(task: () => unknown, ms: number): () => void {
  const latest = useRef(task);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    latest.current = task;
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void latest.current(), ms);
  }, [ms]);
}

type LiveHandlers = { [E in keyof LiveServerEvents]?: LiveServerEvents[E] };

/**
 * Subscribes this page to live updates (`what`) for as long as it shows, with a handler per event;
 * after a reconnect (a server restart forgets subscriptions) it subscribes again and calls
 * `onReconnect`, for the page to catch up on what it missed.
 */
export function useLive(what: LiveSubscribe, handlers: LiveHandlers, onReconnect?: () => void): void {
  const latest = useRef({ handlers, onReconnect });
  useEffect(() => {
    latest.current = { handlers, onReconnect };
  });
  const subscription = JSON.stringify(what);
  const events = Object.keys(handlers).sort().join(',');
  useEffect(() => {
    const s = liveSocket();
    const wanted = JSON.parse(subscription) as LiveSubscribe;
    const subscribe = () => s.emit('subscribe', wanted);
    const listeners = (events ? (events.split(',') as (keyof LiveServerEvents)[]) : []).map((event) => {
      const listener = (payload: unknown) => (latest.current.handlers[event] as ((p: unknown) => void) | undefined)?.(payload);
      s.on(event, listener);
      return [event, listener] as const;
    });
    const reconnected = () => {
      subscribe();
      latest.current.onReconnect?.();
    };
    subscribe();
    s.io.on('reconnect', reconnected);
    return () => {
      s.emit('unsubscribe', wanted);
      for (const [event, listener] of listeners) s.off(event, listener);
      s.io.off('reconnect', reconnected);
    };
  }, [subscription, events]);
}

/** Whether live updates flow; false while the server is unreachable. */
export function useLiveConnected(): boolean {
  const [connected, setConnected] = useState(() => liveSocket().connected);
  useEffect(() => {
    const s = liveSocket();
    const on = () => setConnected(true);
    const off = () => setConnected(false);
    s.on('connect', on);
    s.on('disconnect', off);
    s.on('connect_error', off);
    return () => {
      s.off('connect', on);
      s.off('disconnect', off);
      s.off('connect_error', off);
    };
  }, []);
  return connected;
}

/** Re-renders every `ms` while `active`, for durations of live calls. */
export function useNow(ms: number, active = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms, active]);
  return now;
}

/**
 * Whether the server ended this tab's live connection, which it does only when the tab may no longer
 * watch the project (its API key revoked, the person removed or signed out elsewhere, the project
 * deleted): the tab then says so, not left "reconnecting" for ever. `signedIn`: whether there is anyone to watch for.
 */
export function useAccessEnded(signedIn: boolean): boolean {
  const [revoked, setRevoked] = useState(false);
  useEffect(() => {
    if (!signedIn) return;
    const s = liveSocket();
    const onDisconnect = (reason: string) => {
      if (reason !== 'io server disconnect') return;
      setApiKey(null);
      setRevoked(true);
    };
    s.on('disconnect', onDisconnect);
    return () => {
      s.off('disconnect', onDisconnect);
    };
  }, [signedIn]);
  return revoked;
}

export interface Action {
  /** Runs a change; on success clears the error and runs `after` (what the panel shows, loaded again). Resolves to whether it worked. */
  act: (work: () => Promise<unknown>) => Promise<boolean>;
  /** The change is running (a button or form says so and is not pressed twice). */
  busy: boolean;
  /** The last change's error, kept for the panel to show until the next change succeeds. */
  error: Error | null;
}

/**
 * The one way the dashboard changes data: every button and form runs its request through `act`, which
 * keeps whether it runs and how it failed, and reloads what it changed.
 */
export function useAction(after: () => unknown = () => {}): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const latest = useRef(after);
  useEffect(() => {
    latest.current = after;
  });
  const act = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
      setError(null);
      await latest.current();
      return true;
    } catch (err) {
      setError(err as Error);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { act, busy, error };
}

/** `useAction` for a form: its submit handler runs `work`. */
export function useSubmit(work: () => Promise<unknown>): { submit: (e: FormEvent) => void; busy: boolean; error: Error | null } {
  const { act, busy, error } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act(work);
  };
  return { submit, busy, error };
}

/**
 * A page's filter kept in its URL's query, so a reload, a shared link or Back keeps it: its value, or
 * `fallback` when the URL has none (the URL then stays without it), and its setter (which replaces the
 * history entry: a filter typed letter by letter is not a page per letter).
 */
export function useUrlFilter(name: string, fallback: string): [string, (value: string) => void] {
  const [search, setSearch] = useSearchParams();
  const set = useCallback(
    (value: string) =>
      setSearch(
        (previous) => {
          const next = new URLSearchParams(previous);
          if (value === fallback) next.delete(name);
          else next.set(name, value);
          return next;
        },
        { replace: true },
      ),
    [name, fallback, setSearch],
  );
  return [search.get(name) ?? fallback, set];
}
