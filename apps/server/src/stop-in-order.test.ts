import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stopInOrder } from './stop-in-order.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('stopInOrder', () => {
  it('stops each step after the one before, and is done when the last is', async () => {
    const order: string[] = [];
    const overdue = vi.fn(async () => {});
    const step = (name: string, ms: number) => ({
      name,
      stop: () => new Promise<void>((r) => setTimeout(() => r(void order.push(name)), ms)),
    });
    const done = stopInOrder([step('agent', 3000), step('server', 1000), step('database', 500)], 20_000, overdue);
    await vi.advanceTimersByTimeAsync(4500);
    expect(await done).toBe(true);
    expect(order).toEqual(['agent', 'server', 'database']);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(overdue).not.toHaveBeenCalled();
  });

  it('gives up on a step that never stops at the deadline, naming it and handing over the steps after it', async () => {
    const released: string[] = [];
    const overdue = vi.fn(async (_step: string, rest: readonly { name: string; stop: () => Promise<void> }[]) => {
      for (const s of rest) if (s.name === 'PostgreSQL') await s.stop();
    });
    const done = stopInOrder(
      [
        { name: 'agent', stop: async () => {} },
        { name: 'the server', stop: () => new Promise<void>(() => {}) },
        { name: 'the pool', stop: async () => void released.push('pool') },
        { name: 'PostgreSQL', stop: async () => void released.push('PostgreSQL') },
      ],
      20_000,
      overdue,
    );
    await vi.advanceTimersByTimeAsync(19_999);
    expect(overdue).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toBe(false);
    expect(overdue).toHaveBeenCalledWith('the server', expect.any(Array));
    expect(released).toEqual(['PostgreSQL']);
  });
});
