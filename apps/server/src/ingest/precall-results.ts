import { checker, PrecallReport, type PrecallResultAck } from '@rtcscope/protocol';
import type { Db } from '../db/database.js';
import { storePrecallResult } from '../precall/store.js';
import { Allowance } from './allowance.js';
import { CallOfOtherKind, type IngestSession } from './session.js';
import { MAX_AHEAD_MS } from './time-window.js';

const checkReport = checker(PrecallReport);

/** Pre-call results a project's SDKs may send per minute, on each node: a test sends one; a publishable key must not write a flood. */
export const PRECALL_RESULTS_PER_MINUTE = 120;

/** Results one client address may send per minute for one project, on each node: counted before the project's minute, which one address then cannot spend. */
export const PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE = 12;

/** A result is sent as its test ends, or again after a reconnect: a test that began longer ago than this is not one that just ran. */
export const PRECALL_MAX_AGE_MS = 3_600_000;

/** Takes a pre-call test's result from its session (`precallResult` on `/ingest`). */
export class PrecallResults {
  private readonly project = new Allowance(PRECALL_RESULTS_PER_MINUTE, 60);
  private readonly address = new Allowance(PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE, 60);

  constructor(private readonly db: Db) {}

  /** What to answer; `stored` when the result is new (the call's listeners hear of it). `address`: the client's, as `addressKey` groups it (null: not counted per address). */
  async take(
    session: IngestSession,
    address: string | null,
    input: unknown,
    now = Date.now(),
  ): Promise<PrecallResultAck & { stored?: boolean }> {
    if (session.handshake.kind !== 'precall') {
      return { ok: false, error: "precallResult: this connection is not a pre-call test (its handshake has no kind: 'precall')" };
    }
    const checked = checkReport(input);
    if (!checked.ok) return { ok: false, error: `precallResult ${checked.error.field}: ${checked.error.message}` };
    const { start, durationMs } = checked.value.testTiming;
    if (start < now - PRECALL_MAX_AGE_MS || start + durationMs > now + MAX_AHEAD_MS) {
      return {
        ok: false,
        error: `precallResult testTiming: a test from ${new Date(start).toISOString()} to ${new Date(start + durationMs).toISOString()} did not just run (the server's clock reads ${new Date(now).toISOString()}; a result is taken up to an hour after its test began): check the client clock`,
      };
    }
    const report = JSON.stringify(checked.value);
    if (session.precallStored !== null) {
      if (session.precallStored === report) return { ok: true };
      return {
        ok: false,
        error: 'precallResult: this connection sent its test result already: a test sends one, from a connection of its own',
      };
    }
    if (address !== null && !(await this.address.take(`${session.projectId} ${address}`))) {
      return {
        ok: false,
        error: `this address sent ${PRECALL_RESULTS_PER_ADDRESS_PER_MINUTE} of the project's pre-call results in the last minute: try again in a minute`,
      };
    }
    if (!(await this.project.take(session.projectId))) {
      return {
        ok: false,
        error: `the project sent ${PRECALL_RESULTS_PER_MINUTE} pre-call results in the last minute: try again in a minute`,
      };
    }
    try {
      await session.register(start);
    } catch (err) {
      if (err instanceof CallOfOtherKind) return { ok: false, error: notPrecall(session) };
      throw err;
    }
    const outcome = await storePrecallResult(this.db, session.projectId, session.callDbId!, checked.value);
    if (outcome === 'not-precall') return { ok: false, error: notPrecall(session) };
    session.precallStored = report;
    return { ok: true, stored: outcome === 'stored' };
  }
}

const notPrecall = (session: IngestSession) =>
  `call ${session.handshake.callId} was made as a call, not a pre-call test: its id is taken; use a new id`;
