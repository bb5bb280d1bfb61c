import type {
  Batch,
  PackedBatch,
  IceServersAnswer,
  IngestAck,
  IngestClientEvents,
  IngestHandshake,
  PrecallReport,
  PrecallResultAck,
} from '@rtcscope/protocol';
import { LIMITS } from '@rtcscope/protocol/fields';
import { packRows, type References, type WireRow } from '@rtcscope/protocol/packed';
import { AckQueue } from './queue.js';
import { IngestSocket } from './socket.js';
import type { DescriptorRegistry } from './registry.js';

const RECONNECT_MAX_MS = 5000;

/** A sample row with its absolute time; the batch turns it into an offset from its base time. */
export interface PendingRow {
  ts: number;
  /** `[index, seq, ...values]` */
  row: (number | null)[];
}

export interface PendingEvent {
  seq: number;
  ts: number;
  conn: number | null;
  type: string;
  detail?: string;
}

export interface TransportOptions {
  server: string;
  handshake: IngestHandshake;
  maxBufferedRows: number;
  ackTimeoutMs: number;
  onError: (error: { code: string; message: string; field?: string }) => void;
}

/**
 * Sends batches over socket.io, one at a time, and forgets rows only when the server acknowledged them
 * as committed. Unacknowledged rows wait (bounded) and go again after a reconnect.
 */
/** Handshake refusals that ask the SDK to come back later (its samples wait meanwhile). */
const COME_BACK = new Set(['unavailable', 'too_many_connections', 'too_many_calls']);

export class Transport {
  readonly streamRows: AckQueue<PendingRow>;
  readonly connectionRows: AckQueue<PendingRow>;
  readonly events = new AckQueue<PendingEvent>(1000);
  private readonly socket: IngestSocket<IngestClientEvents>;
  private batchNumber = 0;
  private inFlight: Promise<void> | null = null;
  /** Bumped on every (re)connect, so an ack from an old socket cannot mark descriptors as sent. */
  private generation = 0;
  private metadata: IngestHandshake['metadata'];
  private bye = false;
  /** Refusals in a row by a server that asked to come back later, for the backoff. */
  private refusals = 0;
  private comeBack: ReturnType<typeof setTimeout> | undefined;
  /** The last batch was refused as over the project's ingest limit. */
  private limited = false;
  /** The last batch of this socket the server stored, whose references the next is packed against. */
  private stored: { n: number; references: References } | null = null;

  constructor(
    private readonly options: TransportOptions,
    private readonly registry: DescriptorRegistry,
  ) {
    this.streamRows = new AckQueue(options.maxBufferedRows);
    this.connectionRows = new AckQueue(Math.ceil(options.maxBufferedRows / 4));
    this.socket = new IngestSocket(options.server.replace(/\/$/, ''), '/ingest', options.handshake, RECONNECT_MAX_MS, {
      route: routeOf(options.handshake.callId),
    });
    this.socket.on('connect', () => {
      this.refusals = 0;
      this.generation++;
      this.registry.markAllUnsent();
      this.stored = null;
      void this.flush();
    });
    this.socket.on('connect_error', (err) => {
      const data = err.data;
      if (data?.code) this.options.onError({ code: data.code, message: err.message, ...(data.field ? { field: data.field } : {}) });
      // The socket stops reconnecting once the server refused it. A server that could not check
      // the key just then (`unavailable`: its database was busy or away), or that holds as many of the
      // project's connections or live calls as its limits allow, asks to come back; a wrong key or
      // handshake does not. The jitter spreads the SDKs of a whole outage over the backoff.
      if (!this.socket.active && data?.code !== undefined && COME_BACK.has(data.code)) {
        const delay = Math.min(RECONNECT_MAX_MS, 500 * 2 ** this.refusals++) * (0.5 + Math.random());
        this.comeBack = setTimeout(() => this.socket.connect(), delay);
      }
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** Waits for the socket (up to `timeoutMs`), then asks; a socket that does not come up is an answer too. */
  async iceServers(timeoutMs: number): Promise<IceServersAnswer> {
    return this.ask(timeoutMs, () => this.socket.emitWithAck('iceServers', timeoutMs));
  }

  async precallResult(report: PrecallReport, timeoutMs: number): Promise<PrecallResultAck> {
    return this.ask(timeoutMs, () => this.socket.emitWithAck('precallResult', timeoutMs, report));
  }

  private async ask<T>(timeoutMs: number, request: () => Promise<T>): Promise<T | { ok: false; error: string }> {
    if (!this.socket.connected) {
      const up = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        this.socket.once('connect', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!up) return { ok: false, error: `no connection to the rtcscope server within ${timeoutMs / 1000} s` };
    }
    return request().catch(() => ({ ok: false, error: `the rtcscope server did not answer within ${timeoutMs / 1000} s` }) as const);
  }

  setMetadata(metadata: IngestHandshake['metadata']): void {
    this.metadata = metadata;
  }

  /**
   * Sends what is pending; resolves when that batch was answered or timed out. A backlog left by an
   * outage drains batch after batch as long as the server accepts them.
   */
  flush(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (!this.socket.connected) return Promise.resolve();
    this.inFlight = this.sendOne()
      .catch(() => false)
      .then((accepted) => {
        this.inFlight = null;
        const backlog = this.streamRows.size + this.connectionRows.size > 0;
        if (accepted && backlog && !this.bye) void this.flush();
      });
    return this.inFlight;
  }

  /** Sends everything pending, marks the session closed and disconnects. */
  async close(timeoutMs: number): Promise<void> {
    this.bye = true;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && this.socket.connected) {
      await this.flush();
      if (!this.bye) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    clearTimeout(this.comeBack);
    this.socket.disconnect();
  }

  /** Sends one batch; true when the server took it (stored, or refused for good). */
  private async sendOne(): Promise<boolean> {
    const generation = this.generation;
    const s = this.streamRows.peek(LIMITS.maxBatchRows);
    const c = this.connectionRows.peek(Math.max(0, LIMITS.maxBatchRows - s.items.length));
    const e = this.events.peek(LIMITS.maxBatchEvents);
    const descriptors = this.registry.unsent();
    const metadata = this.metadata;
    const bye = this.bye && s.items.length === this.streamRows.size && c.items.length === this.connectionRows.size;
    const empty = s.items.length + c.items.length + e.items.length + descriptors.conns.length + descriptors.streams.length === 0;
    if (empty && !metadata && !bye) return false;

    const t0 = Math.round(s.items[0]?.ts ?? c.items[0]?.ts ?? e.items[0]?.ts ?? Date.now());
    const n = this.batchNumber++;
    const stored = this.stored;
    const packed = packRows(
      { n, base: stored?.n ?? null, t0 },
      s.items.map((r) => withOffset(r, t0)),
      c.items.map((r) => withOffset(r, t0)),
      stored?.references ?? new Map(),
    );
    const batch: PackedBatch = { p: packed.p };
    if (descriptors.conns.length) batch.conns = descriptors.conns;
    if (descriptors.streams.length) batch.streams = descriptors.streams;
    if (e.items.length) batch.e = e.items.map((ev) => eventRow(ev, t0));
    if (metadata) batch.metadata = metadata;
    if (bye) batch.bye = true;

    let ack: IngestAck;
    // A batch in flight when the socket drops will never be answered: give up on it at once rather than
    // at the ack timeout, so the backlog goes out as soon as the socket is back.
    let onDisconnect = () => {};
    const dropped = new Promise<never>((_, reject) => {
      onDisconnect = () => reject(new Error('disconnected'));
      this.socket.once('disconnect', onDisconnect);
    });
    try {
      ack = await Promise.race([this.socket.emitWithAck('batch', this.options.ackTimeoutMs, batch), dropped]);
    } catch {
      return false; // no answer: keep everything, it goes again
    } finally {
      this.socket.off('disconnect', onDisconnect);
    }
    if (!ack.ok && ack.error.field === 'metadata') {
      // The participant's stored metadata is full: the metadata is dropped, the rows go again without it.
      this.options.onError(ack.error);
      if (metadata === this.metadata) this.metadata = undefined;
      return true;
    }
    if (!ack.ok && ack.error.code === 'base_unknown') {
      // The server does not keep what this batch was packed against (a batch it stored whose answer
      // never came, more than once): the next goes whole.
      this.stored = null;
      return false;
    }
    if (!ack.ok && ack.retry) {
      // Over the project's ingest limit the rows wait and go again: worth telling the app, once a spell.
      if (ack.error.code === 'rate_limited' && !this.limited) this.options.onError(ack.error);
      this.limited = ack.error.code === 'rate_limited';
      return false;
    }
    this.limited = false;
    if (!ack.ok) this.options.onError(ack.error);
    else if (generation === this.generation) this.stored = { n, references: packed.references };
    this.streamRows.ackThrough(s.lastId);
    this.connectionRows.ackThrough(c.lastId);
    this.events.ackThrough(e.lastId);
    if (generation === this.generation) this.registry.markSent(descriptors.keys);
    if (metadata === this.metadata) this.metadata = undefined;
    if (bye) this.bye = false;
    return true;
  }
}

/**
 * What a load balancer keeps a call's participants together by (infra/nginx): a hash of the call id
 * (FNV-1a, 32 bits), so the id itself stays out of the balancer's logs.
 */
export function routeOf(callId: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < callId.length; i++) h = Math.imul(h ^ callId.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

function withOffset(r: PendingRow, t0: number): WireRow {
  const [index = null, seq = null, ...values] = r.row;
  return [index, seq, Math.round(r.ts - t0), ...values];
}

function eventRow(ev: PendingEvent, t0: number): NonNullable<Batch['e']>[number] {
  const dt = Math.round(ev.ts - t0);
  const type = ev.type as NonNullable<Batch['e']>[number][3];
  return ev.detail === undefined ? [ev.seq, dt, ev.conn, type] : [ev.seq, dt, ev.conn, type, ev.detail.slice(0, LIMITS.maxDetailLength)];
}
