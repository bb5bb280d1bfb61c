import type pg from 'pg';
import { type BatchResult, type BatchWrite, writeGroup } from './writer.js';

interface Pending {
  write: BatchWrite;
  resolve: (r: BatchResult) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: while one statement is in flight, batches from every socket gather and go together in
 * the next one. An idle server writes a batch at once; a busy one pays one round trip and one commit
 * for many batches. If a group fails, its batches are tried one by one, so one bad batch cannot make
 * others fail with it.
 */
export class GroupCommitter {
  private queue: Pending[] = [];
  private inFlight = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxRowsPerGroup = 20_000,
  ) {}

  write(write: BatchWrite): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    const group: Pending[] = [];
    let rows = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const size = next.write.streamRows.length + next.write.connectionRows.length;
      if (group.length > 0 && rows + size > this.maxRowsPerGroup) break;
      group.push(this.queue.shift()!);
      rows += size;
    }
    this.inFlight = true;
    void this.commit(group).finally(() => {
      this.inFlight = false;
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
