import type { LabChanged, LabProgress } from '@rtcscope/protocol';
import { useEffect, useRef } from 'react';
import { liveSocket } from './live.js';

/**
 * Keeps a lab page current: `reload` after any change of campaigns, runs or agents (at most every
 * 300 ms), `onProgress` for every progress report of a running run, and a reload after a reconnect.
 */
export function useLabLive(reload: () => void, onProgress?: (p: LabProgress) => void, only?: (c: LabChanged) => boolean): void {
  const handlers = useRef({ reload, onProgress, only });
  useEffect(() => {
    handlers.current = { reload, onProgress, only };
  });
  useEffect(() => {
    const s = liveSocket();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => handlers.current.reload(), 300);
    };
    const subscribe = () => s.emit('subscribe', { lab: true });
    const changed = (c: LabChanged) => (handlers.current.only?.(c) ?? true) && soon();
    const progress = (p: LabProgress) => handlers.current.onProgress?.(p);
    const reconnected = () => {
      subscribe();
      soon();
    };
    subscribe();
    soon();
    s.on('lab-changed', changed);
    s.on('lab-progress', progress);
    s.io.on('reconnect', reconnected);
    return () => {
      clearTimeout(timer);
      s.emit('unsubscribe', { lab: true });
      s.off('lab-changed', changed);
      s.off('lab-progress', progress);
      s.io.off('reconnect', reconnected);
    };
  }, []);
}

/** Offers text as a file to save. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
