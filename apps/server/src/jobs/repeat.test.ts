import { afterEach, describe, expect, it, vi } from 'vitest';
import { repeat } from './repeat.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('repeat', () => {
  it('runs at start, never two runs at once, and stops a run in progress through its signal', async () => {
    vi.useFakeTimers();
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
        // Busy until stopped.
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        sawAbort = signal.aborted;
        running -= 1;
      },
      () => {},
      true,
    );
    // Ten intervals pass while the first run is still going: none starts beside it.
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    await stop();
    expect(sawAbort).toBe(true);
    expect(running).toBe(0);
    expect(overlapped).toBe(false);
  });

  it('reports a failed run and runs again at the next interval', async () => {
    vi.useFakeTimers();
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
    await vi.advanceTimersByTimeAsync(40);
    await stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['run 1', 'run 2']);
  });
});
