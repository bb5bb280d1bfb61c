import { compileTimeline, findScenario } from '@rtcscope/scenario';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../emulator/probe.js';
import { RunLinks } from './links.js';

const linksOf = async (id: string) => {
  const s = structuredClone(findScenario(id)!);
  return { s, links: await RunLinks.open(s, RunLinks.initialStates(compileTimeline(s)), BACKENDS.relay) };
};

describe('RunLinks', () => {
  it("routes i→j over i's uplink then j's downlink, and back the other way", async () => {
    const { links } = await linksOf('mesh-3');
    const p = links.path(0, 2);
    const q = links.path(1, 2);
    expect(p.aToB).toHaveLength(2);
    expect(p.aToB[1]).toBe(q.aToB[1]); // both reach participant 2 through its one downlink
    expect(p.bToA[0]).toBe(q.bToA[0]); // 2's uplink carries its media to 0 and to 1
    expect(p.aToB[0]).not.toBe(q.aToB[0]);
  });

  it('puts every call on the two halves of one shared bottleneck', async () => {
    const { links } = await linksOf('rtp-fairness');
    const p = links.path(0, 1);
    expect(p.aToB).toEqual([expect.any(Object)]);
    expect(links.path(0, 1).aToB[0]).toBe(p.aToB[0]);
    expect(p.aToB[0]).not.toBe(p.bToA[0]);
    expect(p.aToB[0]!.conditions.rateKbps).toBe(2000);
    expect(() => links.tcpBottleneck()).toThrow(/kernel-rate backend/);
  });

  it('changes every link object of an id', async () => {
    const { links } = await linksOf('queue-1mbps');
    const p = links.path(0, 1);
    links.set('bottleneck', { ...p.aToB[0]!.conditions, rateKbps: 300 });
    expect([p.aToB[0]!.conditions.rateKbps, p.bToA[0]!.conditions.rateKbps]).toEqual([300, 300]);
  });
});
