import type { LinkState, Loss } from '@rtcscope/scenario';

export type Deliver = (packet: Buffer) => void;

/** One direction of an emulated link, whichever backend carries it. */
export interface Link {
  set(state: LinkState): void;
  readonly conditions: LinkState;
  send(packet: Buffer, deliver: Deliver): void;
}

export const DEFAULT_QUEUE_MS = 200;

/** A random source; tests pass a seeded one. */
export type Random = () => number;

/**
 * One direction of an emulated link in user space: loss (random or Gilbert–Elliott), a rate limit
 * with a bounded FIFO queue (tail drop), then delay and jitter. Conditions can change at any time and
 * apply to packets arriving from then on. Packets leave in order: jitter never reorders, as on a real
 * FIFO link.
 */
export class EmulatedLink implements Link {
  private state: LinkState;
  /** When the link finishes serializing the last accepted packet (ms, performance clock). */
  private busyUntil = 0;
  private lastDelivery = 0;
  private bad = false;
  readonly counters = { packets: 0, bytes: 0, lost: 0, queueDrops: 0, delivered: 0 };

  constructor(
    state: LinkState,
    private readonly random: Random = Math.random,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.state = state;
  }

  set(state: LinkState): void {
    this.state = state;
  }

  get conditions(): LinkState {
    return this.state;
  }

  send(packet: Buffer, deliver: Deliver): void {
    this.counters.packets++;
    this.counters.bytes += packet.length;
    if (this.lose(this.state.loss)) {
      this.counters.lost++;
      return;
    }
    const now = this.now();
    let leaves = now;
    const { rateKbps, queueMs } = this.state;
    if (rateKbps !== null) {
      const start = Math.max(now, this.busyUntil);
      // A full queue drops the newcomer. Without a set depth the queue holds 200 ms at the link rate,
      // a common router buffer; the queue scenarios set 100 ms to 10 s explicitly.
      if (start - now > (queueMs ?? DEFAULT_QUEUE_MS)) {
        this.counters.queueDrops++;
        return;
      }
      this.busyUntil = start + (packet.length * 8) / rateKbps;
      leaves = this.busyUntil;
    }
    const jitter = this.state.jitterMs > 0 ? (this.random() * 2 - 1) * this.state.jitterMs : 0;
    const at = Math.max(leaves + Math.max(0, this.state.delayMs + jitter), this.lastDelivery);
    this.lastDelivery = at;
    const wait = at - now;
    const out = () => {
      this.counters.delivered++;
      deliver(packet);
    };
    if (wait <= 0) out();
    else setTimeout(out, wait);
  }

  private lose(loss: Loss): boolean {
    if (loss.model === 'random') return loss.pct > 0 && this.random() * 100 < loss.pct;
    // Gilbert–Elliott: a two-state Markov chain stepped once per packet.
    this.bad = this.bad ? this.random() >= loss.r : this.random() < loss.p;
    return this.random() * 100 < (this.bad ? loss.badPct : loss.goodPct);
  }
}

/** Packets crossing several links in turn, e.g. the sender's uplink then the receiver's downlink. */
export function chain(links: readonly Link[], deliver: Deliver): Deliver {
  return links.reduceRight<Deliver>((next, link) => (packet) => link.send(packet, next), deliver);
}
