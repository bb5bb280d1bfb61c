import type { LinkId, LinkState, Scenario, Timeline } from '@rtcscope/scenario';
import { EmulatedLink } from '../emulator/link.js';

/**
 * The emulated links of a pair call and the path each direction takes. With per-participant links,
 * A→B crosses A's uplink then B's downlink; with a shared bottleneck both directions have their own
 * half of the one duplex link.
 */
export class PairLinks {
  private readonly byId = new Map<LinkId, EmulatedLink[]>();
  readonly aToB: EmulatedLink[];
  readonly bToA: EmulatedLink[];

  constructor(scenario: Scenario, initial: ReadonlyMap<LinkId, LinkState>) {
    const make = (id: LinkId, count = 1) => {
      const links = Array.from({ length: count }, () => new EmulatedLink(initial.get(id)!));
      this.byId.set(id, links);
      return links;
    };
    if (scenario.links.mode === 'shared') {
      const [forward, reverse] = make('bottleneck', 2);
      this.aToB = [forward!];
      this.bToA = [reverse!];
    } else {
      this.aToB = [...make('p0-up'), ...make('p1-down')];
      this.bToA = [...make('p1-up'), ...make('p0-down')];
    }
  }

  set(id: LinkId, state: LinkState): void {
    for (const link of this.byId.get(id) ?? []) link.set(state);
  }

  static initialStates(timeline: Timeline): Map<LinkId, LinkState> {
    return new Map(timeline.points.filter((p) => p.t === 0).map((p) => [p.link, p.state]));
  }
}
