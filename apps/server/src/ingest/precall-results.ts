import { checker, PrecallReport, type PrecallResultAck } from '@rtcscope/protocol';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/database.js';
import { storePrecallResult } from '../precall/store.js';
import type { IngestSession } from './session.js';

const checkReport = checker(PrecallReport);

/** Pre-call results a project's SDKs may send per minute, on each node: a test sends one; a publishable key must not write a flood. */
export const PRECALL_RESULTS_PER_MINUTE = 120;

/** Takes a pre-call test's result from its session (`precallResult` on `/ingest`). */
export class PrecallResults {
  private readonly limiter = new RateLimiterMemory({ points: PRECALL_RESULTS_PER_MINUTE, duration: 60 });

  constructor(private readonly db: Db) {}

  /** What to answer; `stored` when the result is new (the call's listeners hear of it). */
  async take(session: IngestSession, input: unknown): Promise<PrecallResultAck & { stored?: boolean }> {
    if (session.handshake.kind !== 'precall') {
      return { ok: false, error: "precallResult: this connection is not a pre-call test (its handshake has no kind: 'precall')" };
    }
    const checked = checkReport(input);
    if (!checked.ok) return { ok: false, error: `precallResult ${checked.error.field}: ${checked.error.message}` };
    try {
      await this.limiter.consume(session.projectId);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return {
        ok: false,
        error: `the project sent ${PRECALL_RESULTS_PER_MINUTE} pre-call results in the last minute: try again in a minute`,
      };
    }
    await session.register(checked.value.testTiming.start);
    const outcome = await storePrecallResult(this.db, session.projectId, session.callDbId!, checked.value);
    if (outcome === 'not-precall') {
      return {
        ok: false,
        error: `call ${session.handshake.callId} was made as a call, not a pre-call test: its id is taken; use a new id`,
      };
    }
    return { ok: true, stored: outcome === 'stored' };
  }
}
