import type { IceServersAnswer, IngestHandshake, Metadata, PrecallReport, PrecallResultAck } from '@rtcscope/protocol';
import { type EventType, LIMITS, PROTOCOL_VERSION } from '@rtcscope/protocol/fields';
import { PeerWatcher } from './peer.js';
import { DescriptorRegistry } from './registry.js';
import { sampleRows } from './rows.js';
import { Transport } from './transport.js';

export interface MonitorOptions {
  /** Base URL of the rtcscope server, e.g. `https://rtcscope.example.com`. */
  server: string;
  ingestKey: string;
  callId: string;
  participantId: string;
  metadata?: Metadata;
  /** getStats() period; the dashboard's resolution. Default 1000 ms. */
  intervalMs?: number;
  /** Sample rows kept while the server is unreachable; the oldest go first beyond this. Default 20,000. */
  maxBufferedRows?: number;
  /**
   * Called for refused keys, refused batches, overflow, and the first batch of a spell over the
   * project's ingest limit (`rate_limited`: the rows wait and go again); the monitor keeps running.
   */
  onError?: (error: { code: string; message: string; field?: string }) => void;
}

export interface PeerConnectionOptions {
  /** A name for this connection in the dashboard; default `pc1`, `pc2`, … */
  label?: string;
  /**
   * When the connection was made (ms since the epoch), for one handed over after it was (an adapter that
   * catches connections before it can monitor them): its set-up is timed from then, not from now.
   */
  createdAt?: number;
}

export const SDK_VERSION = `rtcscope-sdk/0.1.0 wire/${PROTOCOL_VERSION}`;

/**
 * Samples every attached RTCPeerConnection once per interval and streams the samples and events to
 * the rtcscope server. Create one per participant and call.
 */
export class Monitor {
  private readonly registry = new DescriptorRegistry();
  private readonly transport: Transport;
  private readonly watchers = new Map<RTCPeerConnection, PeerWatcher>();
  private readonly intervalMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private tick = 0;
  private eventSeq = 0;
  private connectionCount = 0;
  private closed = false;
  private readonly onPageHide = () => void this.transport.flush();

  /** `kind` is the pre-call test's (runPrecallTest): its call is stored apart from the app's calls. */
  constructor(
    private readonly options: MonitorOptions,
    kind?: IngestHandshake['kind'],
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.transport = new Transport(
      {
        server: options.server,
        handshake: {
          v: PROTOCOL_VERSION,
          key: options.ingestKey,
          callId: options.callId,
          participantId: options.participantId,
          session: randomId(),
          ...(options.metadata ? { metadata: options.metadata } : {}),
          sdk: SDK_VERSION,
          ...(kind ? { kind } : {}),
        },
        maxBufferedRows: options.maxBufferedRows ?? 20_000,
        ackTimeoutMs: 10_000,
        onError: (e) => options.onError?.(e),
      },
      this.registry,
    );
    this.timer = setInterval(() => void this.sampleAll(), this.intervalMs);
    if (typeof document !== 'undefined') {
      document.addEventListener('visibilitychange', this.onPageHide);
      window.addEventListener('pagehide', this.onPageHide);
    }
  }

  addPeerConnection(pc: RTCPeerConnection, options: PeerConnectionOptions = {}): void {
    if (this.closed || this.watchers.has(pc)) return;
    const key = options.label ?? `pc${++this.connectionCount}`;
    const conn = this.registry.connection(key);
    this.event(conn, 'connection-added', key, options.createdAt);
    this.watchers.set(pc, new PeerWatcher(pc, key, (type, detail) => this.event(conn, type, detail)));
  }

  removePeerConnection(pc: RTCPeerConnection): void {
    const watcher = this.watchers.get(pc);
    if (!watcher) return;
    watcher.detach();
    this.watchers.delete(pc);
    this.event(this.registry.connection(watcher.key), 'connection-removed', watcher.key);
  }

  /**
   * Names a track the way every end of the call knows it. Peer to peer nothing is needed; through an SFU
   * that gives a subscriber's copy an msid of its own (Janus), the publisher names its local track and
   * each subscriber its received copy by the SFU's id for the published track (Janus: room, feed and
   * mid; LiveKit: the track SID), so the server ties every copy to its publisher's stream.
   */
  setTrackId(track: MediaStreamTrack | string, id: string): void {
    if (id.length > LIMITS.maxIdLength) throw new RangeError(`a track id is at most ${LIMITS.maxIdLength} characters`);
    this.registry.nameTrack(typeof track === 'string' ? track : track.id, id);
  }

  setMetadata(metadata: Metadata): void {
    this.transport.setMetadata(metadata);
    this.event(null, 'metadata', JSON.stringify(metadata));
  }

  /**
   * The project's TURN servers with credentials that expire (coturn's REST-API scheme), for the app's
   * own connections; an empty list when the project set none.
   */
  iceServers(timeoutMs = 10_000): Promise<IceServersAnswer> {
    return this.transport.iceServers(timeoutMs);
  }

  /** Sends a pre-call test's result (runPrecallTest's own use). */
  sendPrecallResult(report: PrecallReport, timeoutMs = 10_000): Promise<PrecallResultAck> {
    return this.transport.precallResult(report, timeoutMs);
  }

  /** Sample rows the server stored, rows waiting for it and rows lost to overflow, for apps that show a status. */
  get status(): { connected: boolean; storedRows: number; pendingRows: number; droppedRows: number } {
    const { streamRows, connectionRows } = this.transport;
    return {
      connected: this.transport.connected,
      storedRows: streamRows.acknowledged + connectionRows.acknowledged,
      pendingRows: streamRows.size + connectionRows.size,
      droppedRows: streamRows.dropped + connectionRows.dropped,
    };
  }

  /** Takes a last sample, sends everything pending (waiting up to `timeoutMs`) and disconnects. */
  async close(timeoutMs = 3000): Promise<void> {
    if (this.closed) return;
    await this.sampleAll();
    this.closed = true;
    clearInterval(this.timer);
    if (typeof document !== 'undefined') {
      document.removeEventListener('visibilitychange', this.onPageHide);
      window.removeEventListener('pagehide', this.onPageHide);
    }
    for (const w of this.watchers.values()) w.detach();
    this.watchers.clear();
    await this.transport.close(timeoutMs);
  }

  /** One sampling round: every connection's stats at one shared time and sequence number. */
  async sampleAll(): Promise<void> {
    if (this.closed) return;
    const seq = this.tick++;
    const ts = Date.now();
    await Promise.all(
      [...this.watchers.values()].map(async (w) => {
        w.refreshLocalTracks();
        const stats = await w.sample().catch(() => null);
        if (!stats) return;
        const rows = sampleRows(this.registry, w.key, seq, stats);
        if (rows.connection) this.transport.connectionRows.push({ ts, row: rows.connection });
        for (const row of rows.streams) this.transport.streamRows.push({ ts, row });
      }),
    );
    await this.transport.flush();
  }

  private event(conn: number | null, type: EventType, detail?: string, ts = Date.now()): void {
    this.transport.events.push({ seq: this.eventSeq++, ts, conn, type, ...(detail === undefined ? {} : { detail }) });
  }
}

export function createMonitor(options: MonitorOptions): Monitor {
  return new Monitor(options);
}

export function randomId(): string {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(36).padStart(2, '0')).join('');
}
