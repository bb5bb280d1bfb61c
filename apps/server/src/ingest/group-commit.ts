import type pg from 'pg';
import { type BatchResult, type BatchWrite, writeGroup } from './writer.js';

interface Pending {
  write: BatchWrite;
  resolve: (r: BatchResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: while statements are in flight, batches from every socket gather and go together in
 * the next one. An idle server writes a batch at once; a busy one pays one round trip and one commit
 * for many batches. Up to `concurrency` groups are in flight at once, so one group's commit (its WAL
 * flush) overlaps the next group's work instead of idling the machine; a socket's own batches are
 * still written one after another (the ingest plugin waits for each). If a group fails, its batches
 * are tried one by one, so one bad batch cannot make others fail with it.
 */
export class GroupCommitter {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxRowsPerGroup = 20_000,
    private readonly concurrency = 2,
  ) {}

  write(write: BatchWrite): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight >= this.concurrency || this.queue.length === 0) return;
    const group: Pending[] = [];
    let rows = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const size = next.write.streamRows.length + next.write.connectionRows.length;
      if (group.length > 0 && rows + size > this.maxRowsPerGroup) break;
      group.push(this.queue.shift()!);
      rows += size;
    }
    this.inFlight++;
    void this.commit(group).finally(() => {
      this.inFlight--;
      this.pump();
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
