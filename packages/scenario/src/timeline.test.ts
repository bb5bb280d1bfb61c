import { describe, expect, it } from 'vitest';
import { findScenario, LIBRARY } from './library.js';
import type { Scenario } from './schema.js';
import { compileTimeline, stateAt } from './timeline.js';
import { parseScenario } from './validate.js';

const scenario = (id: string): Scenario => structuredClone(findScenario(id)!);

describe('compileTimeline', () => {
  it('applies steps at their times to both directions of every participant', () => {
    const t = compileTimeline(scenario('bw-steps'));
    expect(t.links).toEqual(['p0-up', 'p0-down', 'p1-up', 'p1-down']);
    expect(stateAt(t, 30).get('p1-down')?.rateKbps).toBe(1000);
    expect(stateAt(t, 61).get('p0-up')?.rateKbps).toBe(3000);
    expect(stateAt(t, 299).get('p0-down')?.rateKbps).toBe(1000);
  });

  it("gives a call through an SFU the SFU's own two links, unimpaired unless set, and changes them apart", () => {
    const parsed = parseScenario({
      id: 'sfu-3',
      title: 'three through an SFU',
      participants: { count: 3, topology: 'sfu', video: { width: 640, height: 360, fps: 30 } },
      links: { mode: 'per-participant', uplink: { rateKbps: 2000 }, downlink: { rateKbps: 4000 } },
      schedule: [
        { at: 10, on: 'sfu', set: { delayMs: 40 } },
        { at: 20, participant: 1, on: 'uplink', set: { rateKbps: 500 } },
      ],
      durationS: 30,
    });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const t = compileTimeline(parsed.value);
    expect(t.links).toEqual(['p0-up', 'p0-down', 'p1-up', 'p1-down', 'p2-up', 'p2-down', 'sfu-up', 'sfu-down']);
    expect(stateAt(t, 0).get('sfu-up')).toMatchObject({ rateKbps: null, delayMs: 0 });
    expect(stateAt(t, 0).get('p2-up')?.rateKbps).toBe(2000);
    const at15 = stateAt(t, 15);
    expect([at15.get('sfu-up')?.delayMs, at15.get('sfu-down')?.delayMs, at15.get('p0-up')?.delayMs]).toEqual([40, 40, 0]);
    const at25 = stateAt(t, 25);
    expect([at25.get('p1-up')?.rateKbps, at25.get('p0-up')?.rateKbps, at25.get('sfu-down')?.rateKbps]).toEqual([500, 2000, null]);
  });

  it('expands ramps into a change every 0.5 s', () => {
    const t = compileTimeline(scenario('latency-ramps'));
    const up = t.points.filter((p) => p.link === 'p0-up');
    const firstMinute = up.filter((p) => p.t <= 60);
    expect(firstMinute.map((p) => p.t).slice(0, 4)).toEqual([0, 0.5, 1, 1.5]);
    // Each link a half of the path's one-way 250 ms.
    expect(firstMinute.at(-1)).toMatchObject({ t: 60, state: { delayMs: 125 } });
    expect(stateAt(t, 90).get('p0-up')?.delayMs).toBe(125);
    expect(stateAt(t, 150).get('p0-up')?.delayMs).toBeCloseTo(62.5, 0);
    expect(stateAt(t, 300).get('p0-up')?.delayMs).toBe(0);
  });

  it('shortens every time by the time scale, keeping 0.5 s ramp steps', () => {
    const s = scenario('latency-ramps');
    s.timeScale = 0.1;
    const t = compileTimeline(s);
    expect(t.durationS).toBeCloseTo(30, 9);
    const ramp = t.points.filter((p) => p.link === 'p0-up' && p.t <= 6);
    expect(ramp.map((p) => p.t)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6]);
  });

  it('applies handoff downlink and uplink apart', () => {
    const t = compileTimeline(scenario('handoff'));
    const at = stateAt(t, 130);
    expect(at.get('p0-down')).toMatchObject({ rateKbps: 250, delayMs: 125 });
    expect(at.get('p1-up')).toMatchObject({ rateKbps: 100, delayMs: 125 });
  });

  it('drives one shared bottleneck', () => {
    const t = compileTimeline(scenario('queue-1mbps'));
    expect(t.links).toEqual(['bottleneck']);
    expect(stateAt(t, 250).get('bottleneck')).toMatchObject({ rateKbps: 1000, queueMs: 10_000 });
  });
});

describe('the built-in library', () => {
  it('holds every experiment of EXPERIMENTS.md', () => {
    const ids = LIBRARY.map((s) => s.id);
    for (const id of [
      'static-bw',
      'static-delay',
      'static-loss',
      'bw-steps',
      'latency-ramps',
      'loss-steps',
      'handoff',
      'codecs-vp8',
      'codecs-vp9',
      'codecs-h264',
      'rtp-fairness',
      'tcp-fairness',
      'mesh-2',
      'mesh-3',
      'mesh-4',
      'sfu-2',
      'sfu-3',
      'sfu-4',
      'queue-1mbps',
      'queue-5mbps',
      'mixer-3',
      'mobile',
      'wireless',
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('passes its own validation, cites a source and compiles', () => {
    for (const s of LIBRARY) {
      const parsed = parseScenario(JSON.stringify(s));
      expect({ id: s.id, ok: parsed.ok, error: parsed.ok ? null : parsed.error }).toEqual({ id: s.id, ok: true, error: null });
      expect(s.source).toBeTruthy();
      expect(compileTimeline(s).points.length).toBeGreaterThan(0);
    }
  });

  it('sets RTTs as round trips: a quarter on each of the four links one crosses', () => {
    const rtt = (id: string, at: number, near = 'p0', far = 'p1') => {
      const t = compileTimeline(findScenario(id)!);
      const links = stateAt(t, at);
      return [`${near}-up`, `${far}-down`, `${far}-up`, `${near}-down`].reduce((sum, l) => sum + links.get(l)!.delayMs, 0);
    };
    // Table 4: 0 → 500 → 0 ms, its peak at 2:30.
    expect(rtt('mobile', 150)).toBe(500);
    expect(rtt('codecs-vp8', 150)).toBe(500);
    expect(rtt('wireless', 30)).toBe(4);
    expect(rtt('wireless', 150)).toBe(78);
    expect(rtt('wireless', 330)).toBe(215);
    expect(rtt('mixer-3', 10, 'p0', 'p2')).toBe(13);
  });

  it("sets the papers' one-way delay and loss on the path, made of the sender's uplink and the receiver's downlink", () => {
    const path = (id: string, at: number) => {
      const links = stateAt(compileTimeline(findScenario(id)!), at);
      const [up, down] = [links.get('p0-up')!, links.get('p1-down')!];
      const kept = [up, down].reduce((k, l) => k * (1 - (l.loss.model === 'random' ? l.loss.pct : 0) / 100), 1);
      return { delayMs: up.delayMs + down.delayMs, lossPct: Math.round((1 - kept) * 1e4) / 100 };
    };
    expect(path('static-loss', 500)).toEqual({ delayMs: 0, lossPct: 20 });
    expect(path('loss-steps', 190)).toEqual({ delayMs: 0, lossPct: 7.5 });
    expect(path('codecs-h264', 270)).toEqual({ delayMs: 0, lossPct: 15 });
    expect(path('static-delay', 500)).toEqual({ delayMs: 500, lossPct: 0 });
    expect(path('latency-ramps', 90).delayMs).toBe(250);
  });

  it("puts the Wi-Fi hop on p1's links only, light near the access point and heavy far from it", () => {
    const t = compileTimeline(findScenario('wireless')!);
    expect(stateAt(t, 30).get('p1-down')).toMatchObject({ jitterMs: 10, loss: { model: 'gilbert-elliott', p: 0.002 } });
    expect(stateAt(t, 90).get('p1-up')).toMatchObject({ jitterMs: 80, loss: { model: 'gilbert-elliott', p: 0.01 } });
    expect(stateAt(t, 90).get('p0-up')).toMatchObject({ jitterMs: 0, loss: { model: 'random', pct: 0 } });
    expect(stateAt(t, 150).get('p1-up')).toMatchObject({ jitterMs: 10 });
  });

  it("takes the far hop's RTT to two and three times the path's for 2 s every 10 s, as the MAC's retransmissions did", () => {
    const t = compileTimeline(findScenario('wireless')!);
    const rtt = (at: number) => ['p0-up', 'p1-down', 'p1-up', 'p0-down'].reduce((sum, l) => sum + stateAt(t, at).get(l)!.delayMs, 0);
    // The 78 ms path: far from 180 s, peaks at 185 and 195 s.
    expect([rtt(150), rtt(184), rtt(186), rtt(188), rtt(196), rtt(198)]).toEqual([78, 78, 156, 78, 234, 78]);
    expect(rtt(300 + 5 + 1)).toBe(430);
  });

  it("carries the paper's Table 5 figures for the codecs", () => {
    expect(findScenario('codecs-h264')?.paper?.figures).toContainEqual({
      metric: 'resolution',
      value: '1279x719',
      label: 'H264, mean received',
      source: 'Table 5',
    });
  });

  it('gives every paper figure and reference rate a source, inside the scenario', () => {
    for (const s of LIBRARY) {
      for (const f of s.paper?.figures ?? []) expect(f.source, `${s.id} ${f.label}`).toBeTruthy();
      for (const r of s.paper?.rates ?? []) {
        expect(r.source).toBeTruthy();
        expect(r.fromS).toBeLessThan(r.toS);
        expect(r.toS).toBeLessThanOrEqual(s.durationS);
      }
    }
  });
});
