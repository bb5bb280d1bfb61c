interface Pending<I, O> {
  item: I;
  /** performance.now() when it was submitted. */
  at: number;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

export interface CoalescerLimit<I> {
  /** An item's share of a run's capacity (rows, say). */
  size: (item: I) => number;
  /** A run takes items until the next would pass this; an item larger on its own runs alone. */
  max: number;
  /**
   * A run waits until its first item is this old (or the run is full). Each run has a fixed cost, so
   * under load fewer, larger runs cost less; the price is up to this much latency on every item.
   */
  lingerMs?: number;
  /**
   * Items with the same key never share a run: the later waits for the next. For a run whose results
   * are told apart by something its items would then share.
   */
  key?: (item: I) => string;
}

/**
 * Runs the items of many callers together: while one run is in flight (and for the limit's linger),
 * items gather and go together in the next, which pays one round trip and one commit for many. If a
 * run fails, its items are run one by one, so one bad item cannot fail the others.
 */
export class Coalescer<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private queuedSize = 0;
  private busy = false;
  private lingering: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** Runs items together; returns one result per item, in their order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly limit: CoalescerLimit<I> = { size: () => 1, max: Number.POSITIVE_INFINITY },
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, at: performance.now(), resolve, reject });
      this.queuedSize += this.limit.size(item);
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy || this.queue.length === 0) return;
    const wait = this.queue[0]!.at + (this.limit.lingerMs ?? 0) - performance.now();
    const full = this.queuedSize >= this.limit.max;
    if (wait > 0 && !full) {
      this.lingering ??= setTimeout(() => {
        this.lingering = undefined;
        this.pump();
      }, wait);
      return;
    }
    clearTimeout(this.lingering);
    this.lingering = undefined;
    const group: Pending<I, O>[] = [];
    const keys = new Set<string>();
    const later: Pending<I, O>[] = [];
    let size = 0;
    while (this.queue.length > 0) {
      const next = this.limit.size(this.queue[0]!.item);
      if (group.length > 0 && size + next > this.limit.max) break;
      const pending = this.queue.shift()!;
      const key = this.limit.key?.(pending.item);
      if (key !== undefined && keys.has(key)) {
        later.push(pending);
        continue;
      }
      if (key !== undefined) keys.add(key);
      group.push(pending);
      size += next;
    }
    this.queue.unshift(...later);
    this.queuedSize -= size;
    this.busy = true;
    void this.runGroup(group).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  private async runGroup(group: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.run(group.map((p) => p.item));
      group.forEach((p, k) => p.resolve(results[k]!));
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      for (const p of group) {
        await this.run([p.item]).then(([o]) => p.resolve(o!), p.reject);
      }
    }
  }
}
