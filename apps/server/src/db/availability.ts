/** Node's socket errors of a database that cannot be reached, or whose connection broke. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** Prisma's codes for the same: cannot reach, timed out reaching, connection closed, no connection free in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/** What Prisma's driver adapter calls them. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** node-postgres's own words for a connection that ended or never came. */
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** SQLSTATEs of a failed connection (class 08), a server shutting down, crashed or starting (57P01–57P03), or full (53300). */
function unavailableState(code: unknown): boolean {
  return typeof code === 'string' && (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code));
}

/**
 * Whether an error from node-postgres or Prisma says the database could not be reached or went away
 * (to try again later), rather than that it refused what was asked.
 */
export function databaseUnavailable(err: unknown): boolean {
  const e = err as {
    code?: unknown;
    message?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } };
  } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (SOCKET_ERRORS.has(e.code) || PRISMA_CODES.has(e.code) || unavailableState(e.code))) return true;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause && (ADAPTER_KINDS.has(String(cause.kind)) || (cause.kind === 'postgres' && unavailableState(cause.code)))) return true;
  return typeof e.message === 'string' && PG_MESSAGES.test(e.message);
}

/**
 * After the database comes back, the pool's connections opened before it went away still fail one by
 * one as they are next used: failures this soon after are the same outage ending, not a new one.
 */
export const OUTAGE_TAIL_MS = 15_000;

/**
 * Tells the log once when the database becomes unavailable and once when it is back, however many
 * messages meet the outage in between (hundreds a second while SDKs stream).
 */
export class OutageLog {
  private since: number | null = null;
  private backAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly log: { warn(o: object, msg: string): void; info(msg: string): void }) {}

  /** An error met: true if it was the database being unavailable (now logged, if it is news). */
  failed(err: unknown): boolean {
    if (!databaseUnavailable(err)) return false;
    if (this.since === null && Date.now() - this.backAt >= OUTAGE_TAIL_MS) {
      this.since = Date.now();
      this.log.warn(
        { reason: (err as Error).message },
        'the database is unavailable: SDK batches are refused, to be sent again, until it is back',
      );
    }
    return true;
  }

  succeeded(): void {
    if (this.since === null) return;
    this.log.info(`the database is back after ${((Date.now() - this.since) / 1000).toFixed(1)} s`);
    this.since = null;
    this.backAt = Date.now();
  }
}
