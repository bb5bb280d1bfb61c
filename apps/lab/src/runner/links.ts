import type { LinkId, LinkState, Scenario, Timeline } from '@rtcscope/scenario';
import { EmulatedLink } from '../emulator/link.js';

export interface Path {
  /** Links participant i's packets cross on their way to j, and back. */
  aToB: EmulatedLink[];
  bToA: EmulatedLink[];
}

/**
 * The emulated links of a run and the path between any two participants. With per-participant links,
 * i→j crosses i's uplink then j's downlink; with a shared bottleneck every flow of every call crosses
 * one duplex link, callers' packets one half and callees' the other.
 */
export class RunLinks {
  private readonly byId = new Map<LinkId, EmulatedLink[]>();

  constructor(
    private readonly scenario: Scenario,
    initial: ReadonlyMap<LinkId, LinkState>,
  ) {
    const ids = scenario.links.mode === 'shared' ? ['bottleneck'] : [...Array(scenario.participants.count).keys()].flatMap((k) => [`p${k}-up`, `p${k}-down`]);
    for (const id of ids) {
      this.byId.set(id, Array.from({ length: id === 'bottleneck' ? 2 : 1 }, () => new EmulatedLink(initial.get(id)!)));
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

  set(id: LinkId, state: LinkState): void {
    for (const link of this.byId.get(id) ?? []) link.set(state);
  }

  static initialStates(timeline: Timeline): Map<LinkId, LinkState> {
    return new Map(timeline.points.filter((p) => p.t === 0).map((p) => [p.link, p.state]));
  }
}
