import type { PeerPage } from '../browser/peer.js';

/**
 * Takes what a recorder in a page has queued twice a second, so the page holds little: the recorder is
 * the page's `window[name]`, its `drain()` returns what came since the last, and `take` gets each in
 * order. Once the page has closed (the call ended) it stops; what came after the last drain is lost.
 */
export class PageDrain<D> {
  private readonly timer: ReturnType<typeof setInterval>;
  private draining: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly page: PeerPage,
    private readonly name: string,
    private readonly take: (drained: D) => void,
  ) {
    this.timer = setInterval(() => void this.drain(), 500);
  }

  private drain(): Promise<void> {
    this.draining = this.draining.then(async () => {
      if (this.stopped) return;
      let drained: D;
      try {
        drained = await this.page.evaluate((name) => (window as unknown as Record<string, { drain(): D }>)[name]!.drain(), this.name);
      } catch {
        this.stopped = true;
        return;
      }
      this.take(drained);
    });
    return this.draining;
  }

  /** Takes what is left, and stops. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.drain();
    this.stopped = true;
  }
}
