import type pg from 'pg';
import { type BatchResult, type BatchWrite, writeGroup } from './writer.js';

interface Pending {
  write: BatchWrite;
  resolve: (r: BatchResult) => void;
  reject: (err: unknown) => void;
}

interface Lane {
  queue: Pending[];
  busy: boolean;
}

/**
 * Group commit: while a statement is in flight, batches from every socket gather and go together in
 * the next one. An idle server writes a batch at once; a busy one pays one round trip and one commit
 * for many batches. Batches go through `lanes` lanes, one statement in flight per lane, so one group's
 * commit (its WAL flush) overlaps the next group's work instead of idling the machine. A call's
 * batches always take the same lane: every statement updates its calls' rows, and two in flight
 * holding the same call would wait on each other's row lock, leaving the database one statement at a
 * time under load. A socket's own batches are still written one after another (the ingest plugin
 * waits for each). If a group fails, its batches are tried one by one, so one bad batch cannot make
 * others fail with it.
 */
export class GroupCommitter {
  private readonly lanes: Lane[];

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxRowsPerGroup = 20_000,
    lanes = 2,
  ) {
    this.lanes = Array.from({ length: lanes }, () => ({ queue: [], busy: false }));
  }

  write(write: BatchWrite): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      const lane = this.lanes[write.callDbId % this.lanes.length]!;
      lane.queue.push({ write, resolve, reject });
      this.pump(lane);
    });
  }

  private pump(lane: Lane): void {
    if (lane.busy || lane.queue.length === 0) return;
    const group: Pending[] = [];
    let rows = 0;
    while (lane.queue.length > 0) {
      const next = lane.queue[0]!;
      const size = next.write.streamRows.length + next.write.connectionRows.length;
      if (group.length > 0 && rows + size > this.maxRowsPerGroup) break;
      group.push(lane.queue.shift()!);
      rows += size;
    }
    lane.busy = true;
    void this.commit(group).finally(() => {
      lane.busy = false;
      this.pump(lane);
    });
  }

  private async commit(group: Pending[]): Promise<void> {
    try {
      const results = await writeGroup(this.pool, group.map((p) => p.write));
      group.forEach((p, k) => p.resolve(results[k]!));
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      for (const p of group) {
        await writeGroup(this.pool, [p.write]).then(([r]) => p.resolve(r!), p.reject);
      }
    }
  }
}
