import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * A project's rate is averaged over this long, so that an SDK's backlog after an outage may arrive in
 * bursts, and the largest batch (LIMITS.maxBatchRows) fits the smallest allowance (MIN_INGEST_LIMIT).
 */
export const WINDOW_S = 10;

/**
 * The fewest samples a second an SDK in a call sends (one stream and its connection): a project may
 * hold as many connections on a node as its limit has room for at this rate, so the cap refuses no
 * client whose samples the limit would admit.
 */
export const SAMPLES_PER_SOCKET = 2;

/**
 * The most SDK connections one client address may hold to a node for one project: an office's NAT with
 * that many people in calls at once, while one attacker's address cannot fill the project's cap.
 */
export const SOCKETS_PER_ADDRESS = 100;

/**
 * How many samples a second each project may send to this node: its own limit, else the deployment's
 * (null: none). One customer's burst or runaway SDK then cannot take the node from the others. Each node
 * counts for itself (in memory, rate-limiter-flexible), so behind a load balancer a project may reach
 * its limit on every node.
 */
export class IngestLimits {
  /** One limiter per limit in use; each keeps a count per project. */
  private readonly limiters = new Map<number, RateLimiterMemory>();

  /** SDK connections per project on this node, and per project and client address. */
  private readonly sockets = new Map<string, number>();
  private readonly perAddress = new Map<string, number>();

  constructor(private readonly deploymentLimit: number | null) {}

  /**
   * Why a new connection of the project from `address` is refused, else null: the project's connections
   * to this node are as many as it may hold (`cap`: a client that opens sockets in a loop then holds a
   * bounded share of the node's memory), or that address's are `SOCKETS_PER_ADDRESS` (one client cannot
   * take the project's places from its real SDKs). Checked at the handshake and counted once connected
   * (`opened`, `closed`): handshakes checked at the same moment may pass it by a few.
   */
  socketsFull(projectId: string, ownLimit: number | null, address: string | null): { cap: number } | { perAddress: number } | null {
    if (address !== null && (this.perAddress.get(`${projectId} ${address}`) ?? 0) >= SOCKETS_PER_ADDRESS) {
      return { perAddress: SOCKETS_PER_ADDRESS };
    }
    const limit = ownLimit ?? this.deploymentLimit;
    if (limit === null) return null;
    const cap = Math.floor(limit / SAMPLES_PER_SOCKET);
    return (this.sockets.get(projectId) ?? 0) >= cap ? { cap } : null;
  }

  /** `address`: as `addressKey` groups it (null: not counted per address). */
  opened(projectId: string, address: string | null): void {
    bump(this.sockets, projectId, 1);
    if (address !== null) bump(this.perAddress, `${projectId} ${address}`, 1);
  }

  closed(projectId: string, address: string | null): void {
    bump(this.sockets, projectId, -1);
    if (address !== null) bump(this.perAddress, `${projectId} ${address}`, -1);
  }

  /**
   * Counts a message's `cost` (its samples, events, declarations and metadata keys: `messageCost`)
   * against the project's allowance; returns the limit when it is exceeded, else null.
   */
  async exceeded(projectId: string, ownLimit: number | null, cost: number): Promise<number | null> {
    const limit = ownLimit ?? this.deploymentLimit;
    if (limit === null) return null;
    let limiter = this.limiters.get(limit);
    if (!limiter) this.limiters.set(limit, (limiter = new RateLimiterMemory({ points: limit * WINDOW_S, duration: WINDOW_S })));
    try {
      await limiter.consume(projectId, cost);
      return null;
    } catch (err) {
      if (err instanceof RateLimiterRes) return limit;
      throw err;
    }
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
