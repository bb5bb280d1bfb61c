import { useEffect, useState } from 'react';
import { setApiKey } from './auth.js';
import { liveSocket } from './live.js';

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
 * Whether the server ended this tab's live connection, which it does only when the API key stopped
 * opening the project (revoked, or the project deleted): the tab is then signed out, not left
 * "reconnecting" for ever. `signedIn`: whether there is a key to watch at all.
 */
export function useKeyRevoked(signedIn: boolean): boolean {
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
