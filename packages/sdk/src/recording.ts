import type { Batch } from '@rtcscope/protocol';
import { type EventType, LIMITS } from '@rtcscope/protocol/fields';
import { normalize } from './normalize.js';
import { DescriptorRegistry } from './registry.js';
import { type Cells, sampleRows } from './rows.js';
import type { StatsSnapshot } from './stats.js';

export type { StatEntry, StatsSnapshot } from './stats.js';

interface Row {
  ts: number;
  cells: Cells;
  stream: boolean;
}

interface RecordedEvent {
  ts: number;
  conn: string | null;
  type: EventType;
  detail: string | undefined;
}

/**
 * One recorded participant's getStats snapshots, read back from a dump, made into the batches its
 * monitor would have sent live: the same `normalize()` between consecutive snapshots of a connection,
 * the same rows and descriptors. Snapshots of one connection must come in time order.
 */
export class RecordingEncoder {
  private readonly registry = new DescriptorRegistry();
  private readonly previous = new Map<string, StatsSnapshot>();
  private readonly rows: Row[] = [];
  private readonly events: RecordedEvent[] = [];
  private seq = 0;

  snapshot(connKey: string, ts: number, snapshot: StatsSnapshot): void {
    const rows = sampleRows(this.registry, connKey, this.seq++, normalize(this.previous.get(connKey), snapshot));
    this.previous.set(connKey, snapshot);
    if (rows.connection) this.rows.push({ ts, cells: rows.connection, stream: false });
    for (const cells of rows.streams) this.rows.push({ ts, cells, stream: true });
  }

  event(connKey: string | null, ts: number, type: EventType, detail?: string): void {
    if (connKey !== null) this.registry.connection(connKey);
    this.events.push({ ts, conn: connKey, type, detail });
  }

  /** Sample rows made so far. */
  get rowCount(): number {
    return this.rows.length;
  }

  /**
   * Everything as batches in time order within the protocol's limits: the first declares every
   * connection and stream, the last says goodbye.
   */
  batches(): Batch[] {
    const { conns, streams } = this.registry.unsent();
    const out: Batch[] = [];
    const start = (t0: number): Batch => {
      const batch: Batch = { n: out.length, t0: Math.round(t0) };
      out.push(batch);
      return batch;
    };
    const rows = [...this.rows].sort((a, b) => a.ts - b.ts);
    let batch: Batch | null = null;
    let size = 0;
    for (const row of rows) {
      if (!batch || size === LIMITS.maxBatchRows || row.ts - batch.t0 >= LIMITS.maxOffsetMs) {
        batch = start(row.ts);
        size = 0;
      }
      const [index, seq, ...values] = row.cells;
      (row.stream ? (batch.s ??= []) : (batch.c ??= [])).push([index!, seq!, Math.round(row.ts - batch.t0), ...values]);
      size++;
    }
    const events = [...this.events].sort((a, b) => a.ts - b.ts);
    batch = null;
    for (const [seq, e] of events.entries()) {
      if (!batch || batch.e!.length === LIMITS.maxBatchEvents || e.ts - batch.t0 >= LIMITS.maxOffsetMs) {
        batch = start(e.ts);
        batch.e = [];
      }
      const conn = e.conn === null ? null : this.registry.connection(e.conn);
      const dt = Math.round(e.ts - batch.t0);
      batch.e!.push(e.detail === undefined ? [seq, dt, conn, e.type] : [seq, dt, conn, e.type, e.detail.slice(0, LIMITS.maxDetailLength)]);
    }
    const first = out[0] ?? start(Date.now());
    if (conns.length) first.conns = conns;
    if (streams.length) first.streams = streams;
    out.at(-1)!.bye = true;
    return out;
  }
}
