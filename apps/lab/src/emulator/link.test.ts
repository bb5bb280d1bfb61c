import type { LinkState } from '@rtcscope/scenario';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chain, EmulatedLink } from './link.js';

const open: LinkState = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null };
const packet = (bytes: number, id = 0) => Buffer.alloc(bytes, id);

function seeded(seed = 1): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return (s - 1) / 2147483646;
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('EmulatedLink', () => {
  it('delays every packet by the set delay', () => {
    const link = new EmulatedLink({ ...open, delayMs: 40 }, seeded(), () => Date.now());
    const arrived: number[] = [];
    const start = Date.now();
    link.send(packet(100), () => arrived.push(Date.now() - start));
    vi.advanceTimersByTime(39);
    expect(arrived).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(arrived).toEqual([40]);
  });

  it('serializes at the set rate and drops what overflows the queue', () => {
    // 1000 kbit/s: a 1250-byte packet takes 10 ms; a 50 ms queue holds 5 of them.
    const link = new EmulatedLink({ ...open, rateKbps: 1000, queueMs: 50 }, seeded(), () => Date.now());
    const arrived: number[] = [];
    const start = Date.now();
    for (let k = 0; k < 10; k++) link.send(packet(1250, k), () => arrived.push(Date.now() - start));
    vi.advanceTimersByTime(200);
    expect(arrived).toEqual([10, 20, 30, 40, 50, 60]);
    expect(link.counters).toMatchObject({ packets: 10, queueDrops: 4, delivered: 6 });
  });

  it('loses about the set share of packets at random', () => {
    const link = new EmulatedLink({ ...open, loss: { model: 'random', pct: 10 } }, seeded(7), () => Date.now());
    let delivered = 0;
    for (let k = 0; k < 10_000; k++) link.send(packet(10), () => delivered++);
    vi.runAllTimers();
    expect(delivered / 10_000).toBeGreaterThan(0.88);
    expect(delivered / 10_000).toBeLessThan(0.92);
  });

  it('loses in bursts under Gilbert–Elliott', () => {
    const link = new EmulatedLink(
      { ...open, loss: { model: 'gilbert-elliott', p: 0.01, r: 0.2, badPct: 100, goodPct: 0 } },
      seeded(3),
      () => Date.now(),
    );
    const lost: boolean[] = [];
    for (let k = 0; k < 20_000; k++) {
      let got = false;
      link.send(packet(10), () => (got = true));
      lost.push(!got);
    }
    const rate = lost.filter(Boolean).length / lost.length;
    // Stationary share of bad: p / (p + r) = 0.01 / 0.21 ≈ 4.8 %; bursts average 1/r = 5 packets.
    expect(rate).toBeGreaterThan(0.035);
    expect(rate).toBeLessThan(0.06);
    let bursts = 0;
    for (let k = 1; k < lost.length; k++) if (lost[k] && !lost[k - 1]) bursts++;
    expect(lost.filter(Boolean).length / bursts).toBeGreaterThan(3);
  });

  it('never reorders packets, even with jitter', () => {
    const link = new EmulatedLink({ ...open, delayMs: 20, jitterMs: 15 }, seeded(5), () => Date.now());
    const order: number[] = [];
    for (let k = 0; k < 200; k++) {
      link.send(packet(10, k % 256), (p) => order.push(p[0]!));
      vi.advanceTimersByTime(1);
    }
    vi.runAllTimers();
    expect(order).toEqual(Array.from({ length: 200 }, (_, k) => k % 256));
  });

  it('applies changed conditions to packets arriving afterwards', () => {
    const link = new EmulatedLink({ ...open, delayMs: 10 }, seeded(), () => Date.now());
    const start = Date.now();
    const arrived: number[] = [];
    link.send(packet(10), () => arrived.push(Date.now() - start));
    link.set({ ...open, delayMs: 30 });
    link.send(packet(10), () => arrived.push(Date.now() - start));
    vi.runAllTimers();
    expect(arrived).toEqual([10, 30]);
  });

  it('chains links: delays add up', () => {
    const now = () => Date.now();
    const up = new EmulatedLink({ ...open, delayMs: 15 }, seeded(), now);
    const down = new EmulatedLink({ ...open, delayMs: 25 }, seeded(), now);
    const start = Date.now();
    let at = -1;
    chain([up, down], () => (at = Date.now() - start))(packet(10));
    vi.runAllTimers();
    expect(at).toBe(40);
  });
});
