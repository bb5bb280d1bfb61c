import { type LivePoints, packRows, type References, STREAM_FIELDS, type WireRow } from '@rtcscope/protocol';
import { io, type Socket } from 'socket.io-client';

interface Client {
  socket: Socket;
  seq: number;
  timer?: ReturnType<typeof setInterval>;
}

/** A video stream's values at sampling round `seq` (its rate moves a little, the rest stays). */
export function videoValues(seq: number): (number | null)[] {
  const v: (number | null)[] = new Array(STREAM_FIELDS.length).fill(null);
  v[0] = 1400 + (seq % 50);
  v[1] = 130;
  v[2] = 0;
  v[3] = 0;
  v[4] = 1.5;
  v[5] = 42.5;
  v[6] = 30;
  v[7] = 1280;
  v[8] = 720;
  return v;
}

/**
 * The load: simulated SDK clients, each one participant's SDK with `connections` peer connections
 * (audio and video in and out on each), one batch per second, over real socket.io connections spread
 * over the servers as a load balancer would; and a dashboard watching 20 calls on the first server,
 * for live latency. While `measuring`, it records what was acknowledged, how fast, and what failed.
 * Clients speak wire version `wire` as they connect: 2 as the SDK does, 1 as SDKs before it and servers
 * before it do.
 */
export class Load {
  readonly clients: Client[] = [];
  readonly streams: number;
  measuring = false;
  wire: 1 | 2 = 2;
  ackedSamples = 0;
  /** Why batches failed (the server's refusal, or the ack's timeout), with how often. */
  readonly failures = new Map<string, number>();
  readonly ackLatencies: number[] = [];
  /** Sample time to a dashboard's socket, ms. */
  readonly liveLatencies: number[] = [];
  private dashboard: Socket | null = null;

  constructor(private readonly o: { servers: string[]; ingestKey: string; apiKey: string; connections: number; callSize: number }) {
    this.streams = 4 * o.connections;
  }

  /** A dashboard on the first server, subscribed to the first `calls` calls. */
  async watch(calls: number): Promise<void> {
    const dashboard = io(`${this.o.servers[0]!}/live`, { auth: { apiKey: this.o.apiKey }, transports: ['websocket'] });
    this.dashboard = dashboard;
    // Again on every connect: a server started anew (another build, the diagnosis off) knows no rooms.
    const subscribe = async () => {
      for (let c = 0; c < calls; c++) await dashboard.timeout(5000).emitWithAck('subscribe', { callId: `bench-${c}` });
    };
    await new Promise<void>((r) => dashboard.once('connect', () => r()));
    await subscribe();
    dashboard.io.on('reconnect', () => void subscribe().catch(() => {}));
    dashboard.on('points', (p: LivePoints) => {
      if (!this.measuring) return;
      const now = Date.now();
      for (const pt of p.streams) this.liveLatencies.push(now - pt.ts);
    });
  }

  /** Forgets what was recorded, for the next measurement. */
  reset(): void {
    this.ackedSamples = 0;
    this.failures.clear();
    this.ackLatencies.length = 0;
    this.liveLatencies.length = 0;
  }

  /** Brings the number of connected clients to `target`: new ones arrive over 5 s, as SDKs of starting calls do. */
  async resize(target: number): Promise<void> {
    const adding = target - this.clients.length;
    for (let k = 0; k < adding; k++) {
      this.clients.push(this.start(this.clients.length));
      if (k % 50 === 49) await new Promise((r) => setTimeout(r, (5000 * 50) / adding));
    }
    for (const c of this.clients.splice(target)) {
      clearInterval(c.timer);
      c.socket.disconnect();
    }
  }

  close(): void {
    void this.resize(0);
    this.dashboard?.disconnect();
  }

  private start(k: number): Client {
    const { servers, ingestKey, connections, callSize } = this.o;
    const wire = this.wire;
    const socket = io(`${servers[k % servers.length]!}/ingest`, {
      auth: { v: wire, key: ingestKey, callId: `bench-${Math.floor(k / callSize)}`, participantId: `p${k % callSize}`, session: `s${k}` },
      transports: ['websocket'],
      // Every message compressed where the server takes it, as browsers send them.
      perMessageDeflate: { threshold: 0 },
    });
    const client: Client = { socket, seq: 0 };
    let declared = false;
    /** Version 2: the last batch the server stored, which the next is packed against. */
    let stored: { n: number; references: References } | null = null;
    const send = async () => {
      const t0 = Date.now();
      const seq = client.seq++;
      const values = videoValues(seq);
      const s: WireRow[] = Array.from({ length: this.streams }, (_, i) => [i, seq, 0, ...values]);
      const c: WireRow[] = Array.from({ length: connections }, (_, i) => [i, seq, 0, 42.5, 2500, 2500, 1500, 1500]);
      const packed = wire === 2 ? packRows({ n: seq, base: stored?.n ?? null, t0 }, s, c, stored?.references ?? new Map()) : null;
      const batch: Record<string, unknown> = packed ? { p: packed.p } : { n: seq, t0, s, c };
      if (!declared) {
        batch.conns = Array.from({ length: connections }, (_, i) => ({ i, key: `pc${i}` }));
        batch.streams = Array.from({ length: this.streams }, (_, i) => ({
          i,
          conn: Math.floor(i / 4),
          direction: i % 4 < 2 ? 'out' : 'in',
          kind: i % 2 ? 'audio' : 'video',
          ssrc: 1000 + i,
        }));
      }
      const started = performance.now();
      try {
        const ack = (await socket.timeout(10_000).emitWithAck('batch', batch)) as {
          ok: boolean;
          error?: { code: string; message: string };
        };
        // As the SDK does: the next batch goes whole. (This load sends a batch a second whatever is in
        // flight, so acks slower than the server keeps bases for — a stalled node — come to this.)
        if (ack.error?.code === 'base_unknown') stored = null;
        if (!ack.ok) throw new Error(`refused: ${ack.error?.message}`);
        declared = true;
        if (packed) stored = { n: seq, references: packed.references };
        if (this.measuring) {
          this.ackLatencies.push(performance.now() - started);
          this.ackedSamples += this.streams;
        }
      } catch (err) {
        if (!this.measuring) return;
        const why = (err as Error).message;
        this.failures.set(why, (this.failures.get(why) ?? 0) + 1);
      }
    };
    // As the SDK does: socket.io gives up once the server refused the socket, and a busy server refuses
    // with `unavailable` when it cannot check the key in time.
    socket.on('connect_error', () => {
      if (!socket.active) setTimeout(() => socket.connect(), 500 + Math.random() * 1000);
    });
    socket.on('connect', () => {
      declared = false;
      stored = null;
      if (client.timer) return;
      setTimeout(() => {
        void send();
        client.timer = setInterval(() => void send(), 1000);
      }, Math.random() * 1000);
    });
    return client;
  }
}
