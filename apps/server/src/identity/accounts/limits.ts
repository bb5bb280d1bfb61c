import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Brute-force limits on what guesses a secret or sends mail, counted in PostgreSQL so that every node
 * shares them: failed sign-ins per account from one client address (the guesser, not the person: the
 * account's owner still signs in from elsewhere), per account from every address (ten times as many:
 * a guess spread over many addresses; a password-reset link still opens the account), and per client
 * address (the client behind the load balancer: Fastify's `request.ip` under TRUST_PROXY); and
 * requests that send mail or make accounts per address. Over a limit, the request is refused before
 * the password is even checked.
 */
export interface Limits {
  /** Failed sign-ins of one account from one address in 15 minutes (ten times as many from all addresses). */
  accountFailures: number;
  /** Failed sign-ins from one address in 15 minutes. */
  addressFailures: number;
  /** Sign-ups, password-reset and single sign-on requests from one address in an hour. */
  addressRequests: number;
}

export const DEFAULT_LIMITS: Limits = { accountFailures: 10, addressFailures: 50, addressRequests: 30 };

export class SignInLimits {
  private readonly guesser: RateLimiterPostgres;
  private readonly account: RateLimiterPostgres;
  private readonly address: RateLimiterPostgres;
  private readonly requests: RateLimiterPostgres;

  constructor(pool: pg.Pool, limits: Limits) {
    const store = (keyPrefix: string, points: number, duration: number) =>
      new RateLimiterPostgres({
        storeClient: pool,
        tableName: 'sign_in_limit',
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix,
        points,
        duration,
      });
    this.guesser = store('guesser', limits.accountFailures, 15 * 60);
    this.account = store('account', limits.accountFailures * 10, 15 * 60);
    this.address = store('address', limits.addressFailures, 15 * 60);
    this.requests = store('requests', limits.addressRequests, 60 * 60);
  }

  /** Seconds until this account may try again from this address; 0 when it may now. */
  async signInWait(accountKey: string, ip: string): Promise<number> {
    const [guesser, account, address] = await Promise.all([
      this.guesser.get(`${accountKey} ${ip}`),
      this.account.get(accountKey),
      this.address.get(ip),
    ]);
    return Math.max(waitOf(guesser, this.guesser.points), waitOf(account, this.account.points), waitOf(address, this.address.points));
  }

  async signInFailed(accountKey: string, ip: string): Promise<void> {
    await Promise.all([this.guesser.penalty(`${accountKey} ${ip}`, 1), this.account.penalty(accountKey, 1), this.address.penalty(ip, 1)]);
  }

  /** A right password, or a new one set with a reset link: the account's failures are forgiven (the address's are not). */
  async signedIn(accountKey: string, ip: string): Promise<void> {
    await Promise.all([this.guesser.delete(`${accountKey} ${ip}`), this.account.delete(accountKey)]);
  }

  /** Counts a request that makes an account or sends mail; seconds to wait when over the limit, else 0. */
  async request(ip: string): Promise<number> {
    try {
      await this.requests.consume(ip);
      return 0;
    } catch (res) {
      if (res instanceof RateLimiterRes) return Math.ceil(res.msBeforeNext / 1000);
      throw res;
    }
  }
}

function waitOf(res: RateLimiterRes | null, points: number): number {
  return res && res.consumedPoints >= points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0;
}
