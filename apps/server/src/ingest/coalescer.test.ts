import { describe, expect, it, vi } from 'vitest';
import { Coalescer } from './coalescer.js';

/** A run that waits until released, recording the items of each call. */
function gatedRun() {
  const runs: number[][] = [];
  const gates: (() => void)[] = [];
  const run = (items: number[]) => {
    runs.push(items);
    if (items.includes(-1)) return Promise.reject(new Error('bad item'));
    return new Promise<number[]>((resolve) => gates.push(() => resolve(items.map((i) => i * 10))));
  };
  return { runs, gates, run };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Coalescer', () => {
  it('runs an item at once when idle and gathers the items that arrive while a run is in flight', async () => {
    const g = gatedRun();
    const c = new Coalescer(g.run);
    const first = c.submit(1);
    const rest = [2, 3, 4].map((i) => c.submit(i));
    expect(g.runs).toEqual([[1]]);
    g.gates.shift()!();
    await settle();
    expect(g.runs).toEqual([[1], [2, 3, 4]]);
    g.gates.shift()!();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it('stops a run at the size limit, and runs an item over the limit alone', async () => {
    const g = gatedRun();
    const c = new Coalescer(g.run, { size: (i) => i, max: 5 });
    const all = [1, 2, 3, 4, 9, 1].map((i) => c.submit(i));
    for (let k = 0; k < 5; k++) {
      await settle();
      g.gates.shift()!();
    }
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 90, 10]);
    expect(g.runs).toEqual([[1], [2, 3], [4], [9], [1]]);
  });

  it('with a linger, holds a run until its first item is that old, or until the run is full', async () => {
    vi.useFakeTimers();
    try {
      const g = gatedRun();
      const c = new Coalescer(g.run, { size: () => 1, max: 3, lingerMs: 20 });
      const first = [1, 2].map((i) => c.submit(i));
      await vi.advanceTimersByTimeAsync(19);
      expect(g.runs).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(g.runs).toEqual([[1, 2]]);
      // While that run is in flight a full group gathers; it goes as soon as the run ends.
      const full = [3, 4, 5].map((i) => c.submit(i));
      g.gates.shift()!();
      await vi.advanceTimersByTimeAsync(0);
      expect(g.runs).toEqual([
        [1, 2],
        [3, 4, 5],
      ]);
      g.gates.shift()!();
      expect(await Promise.all([...first, ...full])).toEqual([10, 20, 30, 40, 50]);
      // A full group does not wait for the linger either.
      const again = [6, 7, 8].map((i) => c.submit(i));
      await vi.advanceTimersByTimeAsync(0);
      expect(g.runs.at(-1)).toEqual([6, 7, 8]);
      g.gates.shift()!();
      expect(await Promise.all(again)).toEqual([60, 70, 80]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs the items of a failed run one by one, failing only the bad one', async () => {
    const g = gatedRun();
    const c = new Coalescer(g.run);
    const first = c.submit(1);
    const group = Promise.allSettled([2, -1, 3].map((i) => c.submit(i)));
    g.gates.shift()!();
    await first;
    for (let k = 0; k < 2; k++) {
      await settle();
      g.gates.shift()!();
    }
    const results = await group;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(g.runs).toEqual([[1], [2, -1, 3], [2], [-1], [3]]);
  });

  it('keeps items of one key out of one run, in their order', async () => {
    const g = gatedRun();
    const c = new Coalescer(g.run, { size: () => 1, max: 10, key: (i) => String(i % 10) });
    const first = c.submit(0);
    const rest = [1, 11, 2, 21, 12, 3].map((i) => c.submit(i));
    for (let k = 0; k < 4; k++) {
      await settle();
      g.gates.shift()?.();
    }
    expect(await Promise.all([first, ...rest])).toEqual([0, 10, 110, 20, 210, 120, 30]);
    expect(g.runs).toEqual([[0], [1, 2, 3], [11, 12], [21]]);
  });
});
