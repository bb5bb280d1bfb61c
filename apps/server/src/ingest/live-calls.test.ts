import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOLD_MS, LiveCallLimit, type Place } from './live-calls.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A database whose live calls are `live`: it answers the count as PostgreSQL would, a little later. */
function database(live: string[]) {
  const pool = {
    query: async (_sql: string, [, held, callId]: [string, string[], string]) => {
      await Promise.resolve();
      return { rows: [{ live: live.filter((id) => !held.includes(id)).length, joining: live.includes(callId) || null }] };
    },
  };
  return pool as unknown as pg.Pool;
}

const places = (outcomes: (Place | { full: number })[]) => outcomes.filter((o): o is Place => !('full' in o));

describe('LiveCallLimit', () => {
  it('admits no more new calls than the limit when handshakes arrive at once, counting the calls held here', async () => {
    const limit = new LiveCallLimit(database(['a', 'b']), 5);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, k) => limit.admit('p', `new-${k}`, null)));
    expect(places(outcomes)).toHaveLength(3);
    expect(outcomes.filter((o) => 'full' in o)).toHaveLength(37);
    // A participant joining a call that is live, or held here, is let in.
    expect('full' in (await limit.admit('p', 'a', null))).toBe(false);
    expect('full' in (await limit.admit('p', 'new-0', null))).toBe(false);
    // Another project is counted on its own; its own limit over the deployment's.
    expect('full' in (await limit.admit('q', 'x', null))).toBe(false);
    expect(await limit.admit('p', 'more', 3)).toEqual({ full: 3 });
  });

  it("frees a place when its socket goes, and gives up one held longer than HOLD_MS unused, so that waiting sockets cannot keep the project's places", async () => {
    vi.useFakeTimers();
    const limit = new LiveCallLimit(database([]), 2);
    const first = (await limit.admit('p', 'one', null)) as Place;
    const second = (await limit.admit('p', 'two', null)) as Place;
    expect(await limit.admit('p', 'three', null)).toEqual({ full: 2 });
    first.release();
    const third = (await limit.admit('p', 'three', null)) as Place;
    expect('full' in third).toBe(false);
    expect(await limit.admit('p', 'four', null)).toEqual({ full: 2 });

    vi.advanceTimersByTime(HOLD_MS - 1);
    expect(second.lapsed).toBe(false);
    vi.advanceTimersByTime(1);
    expect([second.lapsed, third.lapsed]).toEqual([true, true]);
    expect('full' in (await limit.admit('p', 'four', null))).toBe(false);
  });

  it('admits every call when neither the project nor the deployment sets a limit', async () => {
    const limit = new LiveCallLimit(database(Array.from({ length: 100 }, (_, k) => `c${k}`)), null);
    expect('full' in (await limit.admit('p', 'new', null))).toBe(false);
  });
});
