import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** So many takes per key in a window of seconds, counted on this node (rate-limiter-flexible, in memory). */
export class Allowance {
  private readonly limiter: RateLimiterMemory;

  constructor(
    private readonly points: number,
    durationS: number,
  ) {
    this.limiter = new RateLimiterMemory({ points, duration: durationS });
  }

  /** Whether `key` has spent all it may in the window, spending nothing. */
  async spent(key: string): Promise<boolean> {
    return ((await this.limiter.get(key))?.consumedPoints ?? 0) >= this.points;
  }

  /** True when `key` had room for `cost` more, which it now spent; false when it had none. */
  async take(key: string, cost = 1): Promise<boolean> {
    try {
      await this.limiter.consume(key, cost);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return false;
      throw err;
    }
  }
}
