import type { Batch } from '@rtcscope/protocol';
import { type EventType, LIMITS } from '@rtcscope/protocol/fields';
import { normalize } from './normalize.js';
import { DescriptorRegistry } from './registry.js';
import { sampleRows } from './rows.js';
import type { StatsSnapshot } from './stats.js';

export type { StatEntry, StatsSnapshot } from './stats.js';
export { mediaSections, sdpOf } from './sdp.js';

type Rows = NonNullable<Batch['s']>;

/**
 * One recorded participant's getStats snapshots, read back from a dump, made into the batches its
 * monitor would have sent live: the same `normalize()` between consecutive snapshots of a connection,
 * the same rows and descriptors. Snapshots of one connection must come in time order. Batches are
 * handed out as they fill (`ready`), so a long recording is never held whole.
 */
export class RecordingEncoder {
  private readonly registry = new DescriptorRegistry();
  private readonly previous = new Map<string, StatsSnapshot>();
  private readonly done: Batch[] = [];
  private batch: Batch | null = null;
  private size = 0;
  private eventSeq = 0;
  private seq = 0;
  private rows = 0;
  private closed = 0;

  snapshot(connKey: string, ts: number, snapshot: StatsSnapshot): void {
    const rows = sampleRows(this.registry, connKey, this.seq++, normalize(this.previous.get(connKey), snapshot));
    this.previous.set(connKey, snapshot);
    const batch = this.room(ts, rows.streams.length + (rows.connection ? 1 : 0), 0);
    const dt = Math.round(ts - batch.t0);
    if (rows.connection) (batch.c ??= []).push(withOffset(rows.connection, dt));
    for (const cells of rows.streams) (batch.s ??= []).push(withOffset(cells, dt));
    this.size += rows.streams.length + (rows.connection ? 1 : 0);
    this.rows += rows.streams.length + (rows.connection ? 1 : 0);
  }

  event(connKey: string | null, ts: number, type: EventType, detail?: string): void {
    const conn = connKey === null ? null : this.registry.connection(connKey);
    const batch = this.room(ts, 0, 1);
    const dt = Math.round(ts - batch.t0);
    (batch.e ??= []).push(
      detail === undefined ? [this.eventSeq++, dt, conn, type] : [this.eventSeq++, dt, conn, type, detail.slice(0, LIMITS.maxDetailLength)],
    );
  }

  /** Sample rows made so far. */
  get rowCount(): number {
    return this.rows;
  }

  /** The batches filled since last asked, in order. */
  ready(): Batch[] {
    return this.done.splice(0);
  }

  /** The last batches, the very last saying goodbye. */
  finish(): Batch[] {
    this.close();
    const out = this.ready();
    if (!out.length) out.push({ n: 0, t0: Date.now() });
    out.at(-1)!.bye = true;
    return out;
  }

  /**
   * The batch to add to: the open one while it has room for these rows and events at this time (the
   * protocol's limits), else a new one. What the registry declared since the last batch goes with
   * the batch it is closed in, before any row that names it.
   */
  private room(ts: number, rows: number, events: number): Batch {
    const b = this.batch;
    const pending = this.registry.pending;
    const full =
      b !== null &&
      (this.size + rows > LIMITS.maxBatchRows ||
        (b.e?.length ?? 0) + events > LIMITS.maxBatchEvents ||
        Math.abs(ts - b.t0) >= LIMITS.maxOffsetMs ||
        pending.conns >= LIMITS.maxConnectionsPerBatch ||
        pending.streams >= LIMITS.maxStreamsPerBatch - 100);
    if (b && !full) return b;
    if (b) this.close();
    this.batch = { n: 0, t0: Math.round(ts) };
    this.size = 0;
    return this.batch;
  }

  /** Closes the open batch with what the registry declared since the last one. */
  private close(): void {
    if (!this.batch) return;
    const { conns, streams, keys } = this.registry.unsent();
    this.registry.markSent(keys);
    this.done.push({ ...this.batch, n: this.closed++, ...(conns.length ? { conns } : {}), ...(streams.length ? { streams } : {}) });
    this.batch = null;
  }
}

function withOffset(cells: (number | null)[], dt: number): Rows[number] {
  const [index, seq, ...values] = cells;
  return [index!, seq!, dt, ...values];
}
