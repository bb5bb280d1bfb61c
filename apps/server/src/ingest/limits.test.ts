import { afterEach, describe, expect, it, vi } from 'vitest';
import { IngestLimits, SAMPLES_PER_SOCKET, SOCKETS_PER_ADDRESS, WINDOW_S } from './limits.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('IngestLimits', () => {
  it("admits a project's samples up to its limit over the window, then refuses until the window passes", async () => {
    vi.useFakeTimers();
    const limits = new IngestLimits(1000);
    expect(await limits.exceeded('a', null, 1000 * WINDOW_S - 10)).toBeNull();
    expect(await limits.exceeded('a', null, 10)).toBeNull();
    expect(await limits.exceeded('a', null, 1)).toBe(1000);
    // Another project is counted on its own.
    expect(await limits.exceeded('b', null, 5000)).toBeNull();
    vi.advanceTimersByTime(WINDOW_S * 1000 + 1);
    expect(await limits.exceeded('a', null, 5000)).toBeNull();
  });

  it("takes a project's own limit over the deployment's, and none when neither is set", async () => {
    const limits = new IngestLimits(1000);
    expect(await limits.exceeded('big', 50_000, 1000 * WINDOW_S + 1)).toBeNull();
    expect(await limits.exceeded('small', null, 1000 * WINDOW_S + 1)).toBe(1000);
    const open = new IngestLimits(null);
    expect(await open.exceeded('any', null, 10_000_000)).toBeNull();
    expect(await open.exceeded('capped', 2000, 2000 * WINDOW_S + 1)).toBe(2000);
  });

  it("caps a project's connections at what its limit admits at two samples a second each, and frees them as they close", () => {
    const limits = new IngestLimits(1000);
    const cap = 1000 / SAMPLES_PER_SOCKET;
    const address = (k: number) => `198.51.100.${k % 250}`;
    for (let k = 0; k < cap; k++) {
      expect(limits.socketsFull('a', null, address(k))).toBeNull();
      limits.opened('a', address(k));
    }
    expect(limits.socketsFull('a', null, '203.0.113.1')).toEqual({ cap });
    expect(limits.socketsFull('b', null, '203.0.113.1')).toBeNull();
    expect(limits.socketsFull('a', 2000, '203.0.113.1')).toBeNull();
    limits.closed('a', address(0));
    expect(limits.socketsFull('a', null, '203.0.113.1')).toBeNull();
    limits.opened('a', address(0));
    expect(limits.socketsFull('a', null, '203.0.113.1')).toEqual({ cap });
    const open = new IngestLimits(null);
    for (let k = 0; k < 10_000; k++) open.opened('any', address(k));
    expect(open.socketsFull('any', null, '203.0.113.1')).toBeNull();
  });

  it("caps one address's connections to a project, whatever the project's cap, and counts each project and address apart", () => {
    const limits = new IngestLimits(null);
    for (let k = 0; k < SOCKETS_PER_ADDRESS; k++) limits.opened('a', '203.0.113.1');
    expect(limits.socketsFull('a', null, '203.0.113.1')).toEqual({ perAddress: SOCKETS_PER_ADDRESS });
    expect(limits.socketsFull('a', null, '203.0.113.2')).toBeNull();
    expect(limits.socketsFull('b', null, '203.0.113.1')).toBeNull();
    limits.closed('a', '203.0.113.1');
    expect(limits.socketsFull('a', null, '203.0.113.1')).toBeNull();
  });
});
