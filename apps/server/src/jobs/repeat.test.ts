import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { repeat } from './repeat.js';

describe('repeat', () => {
  it('runs at start, never two runs at once, and stops a run in progress through its signal', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    let sawAbort = false;
    const stop = repeat(
      0.01,
      async (signal) => {
        runs += 1;
        running += 1;
        overlapped ||= running > 1;
        await sleep(60_000, undefined, { signal }).catch(() => {
          sawAbort = signal.aborted;
        });
        running -= 1;
      },
      () => {},
      true,
    );
    await sleep(100);
    // Ten intervals passed while the first run was still going.
    expect(runs).toBe(1);
    await stop();
    expect(sawAbort).toBe(true);
    expect(running).toBe(0);
    expect(overlapped).toBe(false);
  });

  it('reports a failed run and runs again at the next interval', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const stop = repeat(
      0.02,
      async () => {
        runs += 1;
        throw new Error(`run ${runs}`);
      },
      (err) => errors.push(err),
    );
    while (runs < 2) await sleep(10);
    await stop();
    expect(errors.map((e) => (e as Error).message).slice(0, 2)).toEqual(['run 1', 'run 2']);
  });
});
