import { describe, expect, it } from 'vitest';
import { alignStream, BEHIND_MS, type FrameSeen } from './timeline.js';

const o = { period: 300, fps: 30, windowMs: 5000 };
const T0 = 1_000_000;
const sentAt = (u: number) => T0 + (u * 1000) / 30;

/** 20 s sent at 30 fps (the clip of 300 repeated), received `latency` ms later unless `lost`, on screen at 10 ticks a second. */
function call({
  latency = 80,
  lost = (_u: number): boolean => false,
  heldFrom = Infinity,
  heldUntil = -Infinity,
}: { latency?: number; lost?: (u: number) => boolean; heldFrom?: number; heldUntil?: number } = {}) {
  const sent: FrameSeen[] = [];
  const received: FrameSeen[] = [];
  for (let u = 0; u < 600; u++) {
    sent.push({ t: sentAt(u), n: u % 300 });
    const t = sentAt(u) + latency;
    const held = t >= heldFrom && t < heldUntil;
    if (!lost(u) && !held) received.push({ t, n: u % 300 });
  }
  const ticks: FrameSeen[] = [];
  for (let t = T0 + 500; t < sentAt(600); t += 100) {
    const last = received.filter((f) => f.t <= t).at(-1);
    ticks.push({ t, n: last?.n ?? null });
  }
  return { sent, received, ticks };
}

describe('aligning what was seen with what was sent', () => {
  it('finds a clean stream on time throughout, across the clip repeating, whatever its steady delay', () => {
    for (const latency of [40, 400]) {
      const { sent, received, ticks } = call({ latency });
      const a = alignStream(sent, received, ticks, o);
      expect(a.ticks.every((t) => t.behindMs !== null && t.behindMs <= 1000 / 30)).toBe(true);
      expect(a.windows.every((w) => w.skipped === 0 && w.frozenShare === 0)).toBe(true);
      expect(a.windows.find((w) => w.latencyMs !== null)!.latencyMs).toBeCloseTo(latency, 6);
    }
  });

  it("takes a frame the sender's page showed after the receiver presented it as on time, not as the clip's previous loop", () => {
    const { sent, received, ticks } = call({ latency: -60 });
    const a = alignStream(sent, received, ticks, o);
    expect(a.windows.every((w) => w.frozenShare === 0 && w.skipped === 0)).toBe(true);
    expect(a.windows.find((w) => w.latencyMs !== null)!.latencyMs).toBeCloseTo(-60, 6);
  });

  it('counts a frame sent and never presented as skipped, in the window it was missed', () => {
    const { sent, received, ticks } = call({ lost: (u) => u === 200 || u === 201 || u === 450 });
    const a = alignStream(sent, received, ticks, o);
    const skipped = Object.fromEntries(a.windows.map((w) => [w.ts, w.skipped]));
    expect(skipped[Math.floor((sentAt(202) + 80) / 5000) * 5000]).toBe(2);
    expect(a.windows.reduce((n, w) => n + w.skipped, 0)).toBe(3);
  });

  it('sees a held frame as behind the one due, for as long as it is held, and only in its window', () => {
    const heldFrom = sentAt(330) + 80;
    const { sent, received, ticks } = call({ heldFrom, heldUntil: heldFrom + 1500 });
    const a = alignStream(sent, received, ticks, o);
    const held = a.ticks.filter((t) => t.t >= heldFrom + BEHIND_MS + 50 && t.t < heldFrom + 1500);
    expect(held.length).toBeGreaterThan(8);
    expect(held.every((t) => t.behindMs! > BEHIND_MS && t.shown === 329 % 300)).toBe(true);
    const frozen = a.windows.filter((w) => w.frozenShare > 0);
    expect(frozen.map((w) => w.ts)).toEqual([Math.floor(heldFrom / 5000) * 5000]);
    expect(frozen[0]!.frozenShare).toBeGreaterThan(0.2);
  });

  it('refuses a sender log whose code never read', () => {
    expect(() => alignStream([{ t: 1, n: null }], [], [], o)).toThrow("the sender's log has 0 readable frame(s)");
  });
});
