import type { LabChanged, LabProgress } from '@rtcscope/protocol';
import { useLive, useSoon } from './hooks.js';

/**
 * Keeps a lab page current: `reload` after any change of campaigns, runs or agents (`only` those it
 * shows; at most every 300 ms) and after a reconnect, `onProgress` for every progress report of a
 * running run.
 */
export function useLabLive(reload: () => unknown, onProgress?: (p: LabProgress) => void, only?: (c: LabChanged) => boolean): void {
  const soon = useSoon(reload, 300);
  useLive(
    { lab: true },
    {
      'lab-changed': (c) => (only?.(c) ?? true) && soon(),
      'lab-progress': (p) => onProgress?.(p),
    },
    soon,
  );
}
