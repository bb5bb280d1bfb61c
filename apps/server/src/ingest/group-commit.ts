import type pg from 'pg';
import { Coalescer } from './coalescer.js';
import { type BatchResult, type BatchWrite, writeGroup } from '../samples/write.js';

/**
 * A group waits until its first batch is this old. Each statement has a fixed cost (its plan's
 * start-up, the participant and call updates, the commit) that a group pays once: at 48,000
 * stream-samples/s groups that went as soon as a lane was free held ~11 batches, and the database used
 * 69–76 % of a core; gathering for 20 ms took that to 45–52 % (and the server's from 49–54 % to 43–48 %),
 * for 5–12 ms more ack latency at the median. An SDK only waits on an ack to drop its copy of the batch.
 */
const LINGER_MS = 20;
/** Rows a group holds at most: a statement's arrays stay a few MB. */
const MAX_ROWS_PER_GROUP = 20_000;
/** Statements in flight at once: one commits while the next is written. */
const LANES = 2;

/**
 * Group commit: batches from every socket gather for `LINGER_MS`, and while a statement is in flight,
 * and go together in the next one. Batches go through LANES lanes, one statement in flight per lane,
 * so one group's commit (its WAL flush) overlaps the next group's work instead of idling the machine.
 * A call's batches
 * always take the same lane: every statement updates its calls' rows, and two in flight holding the
 * same call would wait on each other's row lock, leaving the database one statement at a time under
 * load. A socket's own batches are still written one after another (the ingest plugin waits for each).
 */
export class GroupCommitter {
  private readonly lanes: Coalescer<BatchWrite, BatchResult>[];

  /** `onGroup` is told how many batches each statement wrote. */
  constructor(pool: pg.Pool, onGroup?: (batches: number) => void) {
    const limit = {
      size: (w: BatchWrite) => w.streamRows.length + w.connectionRows.length,
      max: MAX_ROWS_PER_GROUP,
      lingerMs: LINGER_MS,
      // A group's statement counts what it stored per stream and connection, and those belong to one
      // session: two sockets of one session (a monitor back while its old socket lingers) go in
      // different groups, or each batch would be told the other's rows too.
      key: (w: BatchWrite) => `${w.participantDbId} ${w.session}`,
    };
    const write = (writes: BatchWrite[]) => {
      onGroup?.(writes.length);
      return writeGroup(pool, writes);
    };
    this.lanes = Array.from({ length: LANES }, () => new Coalescer(write, limit));
  }

  write(write: BatchWrite): Promise<BatchResult> {
    return this.lanes[write.callDbId % this.lanes.length]!.submit(write);
  }
}
