/**
 * The SDK's own socket.io client: one namespace over the browser's WebSocket (Engine.IO 4, Socket.IO 5,
 * JSON packets only), which is all the SDK needs. socket.io-client with its engine was two thirds of the
 * SDK's script; this is a few hundred bytes. The server is the stock socket.io server.
 */

/** A refusal by the server's middleware (`connect_error`): its message and the `data` it attached. */
export interface Refusal {
  message: string;
  data?: { code?: string; field?: string };
}

interface Listeners {
  connect: () => void;
  /** The server refused the namespace (no reconnecting after it), or the WebSocket could not open (reconnecting). */
  connect_error: (error: Refusal) => void;
  disconnect: () => void;
}

/** An event's arguments before its acknowledgement callback, and what the acknowledgement answers. */
type Args<F> = F extends (...a: infer P) => void ? (P extends [...infer A, unknown] ? A : never) : never;
type Answer<F> = F extends (...a: infer P) => void ? (P extends [...unknown[], (answer: infer R) => void] ? R : never) : never;

/** Reconnecting after a lost connection waits 1 s, doubling each attempt up to the most, ±50 %. */
const RECONNECT_FIRST_MS = 1000;

/** `Events`: what the client emits, each with an acknowledgement (as `packages/protocol` types them). */
export class IngestSocket<Events> {
  connected = false;
  /** Connecting or connected, and reconnecting on its own when the connection drops. */
  active = false;
  private ws: WebSocket | null = null;
  private attempts = 0;
  /** How long the connection may be silent: the server's ping interval and timeout. */
  private silenceMs = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private alive: ReturnType<typeof setTimeout> | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (answer: unknown) => void>();
  private readonly listeners: { [K in keyof Listeners]: Set<Listeners[K]> } = {
    connect: new Set(),
    connect_error: new Set(),
    disconnect: new Set(),
  };

  /**
   * `server`: the server's http(s) URL; `namespace`: e.g. `/ingest`; `auth`: the namespace's handshake;
   * `query`: added to the WebSocket's address, where a load balancer can read it.
   */
  constructor(
    private readonly server: string,
    private readonly namespace: string,
    private readonly auth: object,
    private readonly reconnectMaxMs: number,
    private readonly query: Record<string, string> = {},
  ) {
    this.connect();
  }

  on<K extends keyof Listeners>(event: K, fn: Listeners[K]): void {
    this.listeners[event].add(fn);
  }

  off<K extends keyof Listeners>(event: K, fn: Listeners[K]): void {
    this.listeners[event].delete(fn);
  }

  once<K extends keyof Listeners>(event: K, fn: Listeners[K]): void {
    const wrapped = ((...args: Parameters<Listeners[K]>) => {
      this.off(event, wrapped);
      (fn as (...a: Parameters<Listeners[K]>) => void)(...args);
    }) as Listeners[K];
    this.on(event, wrapped);
  }

  /** Opens the connection (again), unless it is open or opening. */
  connect(): void {
    if (this.ws) return;
    clearTimeout(this.retry);
    this.active = true;
    const query = new URLSearchParams({ ...this.query, EIO: '4', transport: 'websocket' });
    const url = `${this.server.replace(/^http/, 'ws')}/socket.io/?${query.toString()}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onmessage = (m) => {
      if (typeof m.data === 'string') this.receive(m.data);
    };
    ws.onclose = () => this.lost(ws);
    ws.onerror = () => {
      if (!this.connected) this.emit('connect_error', { message: 'websocket error' });
      ws.close();
    };
  }

  /**
   * Sends an event and resolves with the server's acknowledgement; rejects when none came within
   * `timeoutMs` (an acknowledgement after that is dropped).
   */
  emitWithAck<E extends keyof Events & string>(event: E, timeoutMs: number, ...args: Args<Events[E]>): Promise<Answer<Events[E]>> {
    return new Promise((resolve, reject) => {
      if (!this.connected) return reject(new Error('not connected'));
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('operation has timed out'));
      }, timeoutMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer as Answer<Events[E]>);
      });
      this.send(`2${this.prefix()}${id}${JSON.stringify([event, ...args])}`);
    });
  }

  /** Closes for good: no reconnecting. */
  disconnect(): void {
    this.active = false;
    clearTimeout(this.retry);
    if (this.connected) this.send(`1${this.prefix()}`);
    this.ws?.close();
  }

  private prefix(): string {
    return this.namespace === '/' ? '' : `${this.namespace},`;
  }

  private send(packet: string): void {
    // `4`: an Engine.IO message, which carries the Socket.IO packet.
    this.ws?.send(`4${packet}`);
  }

  private receive(data: string): void {
    const type = data[0];
    if (type === '0') {
      // The Engine.IO handshake: the server pings every `pingInterval`; silence past that and `pingTimeout` is a lost connection.
      const open = JSON.parse(data.slice(1)) as { pingInterval: number; pingTimeout: number };
      this.watch(open.pingInterval + open.pingTimeout);
      this.send(`0${this.prefix()}${JSON.stringify(this.auth)}`);
    } else if (type === '2') {
      this.watch();
      this.ws?.send('3');
    } else if (type === '4') this.packet(data.slice(1));
    else if (type === '1') this.ws?.close();
  }

  private watch(ms = this.silenceMs): void {
    this.silenceMs = ms;
    clearTimeout(this.alive);
    const ws = this.ws;
    this.alive = setTimeout(() => ws?.close(), ms);
  }

  /** A Socket.IO packet: its type, namespace, acknowledgement id, then JSON. */
  private packet(p: string): void {
    const type = p[0];
    let rest = p.slice(1);
    const prefix = this.prefix();
    if (prefix) {
      if (!rest.startsWith(prefix)) return;
      rest = rest.slice(prefix.length);
    }
    if (type === '0') {
      this.connected = true;
      this.attempts = 0;
      this.emit('connect');
    } else if (type === '4') {
      // Refused by the server's middleware: socket.io-client's rule, no reconnecting after it.
      this.active = false;
      const ws = this.ws;
      this.ws = null;
      clearTimeout(this.alive);
      ws?.close();
      this.emit('connect_error', JSON.parse(rest) as Refusal);
    } else if (type === '3') {
      const id = /^\d+/.exec(rest)?.[0];
      if (id === undefined) return;
      const answer = (JSON.parse(rest.slice(id.length)) as unknown[])[0];
      const resolve = this.pending.get(Number(id));
      this.pending.delete(Number(id));
      resolve?.(answer);
    } else if (type === '1') {
      // The server ended the session (a revoked key, a handshake it will not take): coming back would be told the same.
      this.active = false;
      this.ws?.close();
    }
  }

  private lost(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = null;
    clearTimeout(this.alive);
    const was = this.connected;
    this.connected = false;
    if (was) this.emit('disconnect');
    if (!this.active) return;
    const delay = Math.min(this.reconnectMaxMs, RECONNECT_FIRST_MS * 2 ** this.attempts++) * (0.5 + Math.random());
    this.retry = setTimeout(() => this.connect(), delay);
  }

  private emit<K extends keyof Listeners>(event: K, ...args: Parameters<Listeners[K]>): void {
    for (const fn of [...this.listeners[event]]) (fn as (...a: Parameters<Listeners[K]>) => void)(...args);
  }
}
