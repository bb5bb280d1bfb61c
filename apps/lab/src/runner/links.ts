import { type LinkId, linkIds, type LinkState, type Scenario, type Timeline } from '@rtcscope/scenario';
import { KernelLink } from '../emulator/kernel-link.js';
import { EmulatedLink, type Link } from '../emulator/link.js';
import type { LinkNamespace } from '../emulator/netns.js';
import { BACKENDS, type Backend } from '../emulator/probe.js';

export interface Path {
  /** Links participant i's packets cross on their way to j, and back. */
  aToB: Link[];
  bToA: Link[];
}

/**
 * The emulated links of a run and the path between any two participants. With per-participant links,
 * i→j crosses i's uplink then j's downlink; with a shared bottleneck every flow of every call crosses
 * one duplex link, callers' packets one half and callees' the other (and TCP cross traffic the
 * callers' half). Through an SFU, each participant's path to it crosses its own links and the SFU's.
 */
export class RunLinks {
  private constructor(
    private readonly scenario: Scenario,
    private readonly byId: Map<LinkId, Link[]>,
  ) {}

  static async open(scenario: Scenario, initial: ReadonlyMap<LinkId, LinkState>, backend: Backend): Promise<RunLinks> {
    const links = new RunLinks(scenario, new Map());
    try {
      for (const id of linkIds(scenario)) {
        const state = initial.get(id)!;
        const make = () => (backend === BACKENDS.kernel ? KernelLink.open(state) : Promise.resolve(new EmulatedLink(state)));
        links.byId.set(id, [await make(), ...(id === 'bottleneck' ? [await make()] : [])]);
      }
      return links;
    } catch (err) {
      await links.close();
      throw err;
    }
  }

  path(i: number, j: number): Path {
    if (this.scenario.links.mode === 'shared') {
      const [forward, reverse] = this.byId.get('bottleneck')!;
      return { aToB: [forward!], bToA: [reverse!] };
    }
    const one = (id: string) => this.byId.get(id)![0]!;
    return { aToB: [one(`p${i}-up`), one(`p${j}-down`)], bToA: [one(`p${j}-up`), one(`p${i}-down`)] };
  }

  /**
   * Participant k's path to the SFU: its uplink then the SFU's downlink on the way in, the SFU's uplink then
   * its own downlink on the way out. The SFU's links are one pair that every participant's media shares.
   */
  toSfu(k: number): Path {
    const one = (id: string) => this.byId.get(id)![0]!;
    return { aToB: [one(`p${k}-up`), one('sfu-down')], bToA: [one('sfu-up'), one(`p${k}-down`)] };
  }

  /** The kernel queue TCP cross traffic joins: the callers' half of the shared bottleneck. */
  tcpBottleneck(): LinkNamespace {
    const forward = this.byId.get('bottleneck')?.[0];
    if (!(forward instanceof KernelLink)) throw new Error('TCP cross traffic needs the kernel-rate backend and a shared bottleneck');
    return forward.namespace;
  }

  set(id: LinkId, state: LinkState): void {
    for (const link of this.byId.get(id) ?? []) link.set(state);
  }

  async close(): Promise<void> {
    await Promise.all([...this.byId.values()].flat().map((l) => (l instanceof KernelLink ? l.close() : undefined)));
  }

  static initialStates(timeline: Timeline): Map<LinkId, LinkState> {
    return new Map(timeline.points.filter((p) => p.t === 0).map((p) => [p.link, p.state]));
  }
}
