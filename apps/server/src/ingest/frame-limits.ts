import type { IncomingMessage } from 'node:http';
import { LIMITS } from '@rtcscope/protocol';
import type { Namespace, Server, Socket } from 'socket.io';
import { Allowance } from './allowance.js';

/**
 * What one message may be before its socket has joined a namespace: the largest handshake (an ingest
 * key, ids and 32 metadata keys of 64 characters with values of 256, escaped) fits. A compressed frame
 * is inflated only this far before its socket is closed (1009), not to the message limit: a frame of a
 * kilobyte cost the server ~14 ms of CPU inflating and parsing a megabyte before any key was checked.
 */
export const BEFORE_JOIN_BYTES = 64 * 1024;

/**
 * Message bytes (inflated) one client address may send a node in 10 s, over all its sockets: ten of the
 * largest messages, far above what its SDKs send (tens of kB a second for a hundred monitored pages), so
 * that one address cannot keep a core busy parsing what the server then refuses.
 */
export const ADDRESS_BYTES_PER_10_S = 10 * LIMITS.maxMessageBytes;

/**
 * Connections one client address may open to a node in 10 s: a hundred monitored pages coming back
 * after a restart, while one that reconnects in a loop to start each message afresh is refused at the
 * upgrade, before ws or Engine.IO set anything up for it.
 */
export const ADDRESS_CONNECTIONS_PER_10_S = 200;

/** The parts of an Engine.IO connection this reads: its transport's WebSocket (ws), its events, its request. */
interface EngineConnection {
  request: IncomingMessage;
  transport: { name: string; socket?: WsInternals };
  on(event: 'upgrade', listener: () => void): void;
  on(event: 'packet', listener: (packet: { type: string; data?: unknown }) => void): void;
  close(): void;
}

/**
 * ws keeps its message limit in its receiver and its inflater (ws 8, `maxPayload`), each set once when
 * the connection opens; nothing public changes them later. Reached here only, and tested
 * (frame-limits.int.test.ts), so that a ws that moves them fails a test rather than the limit.
 */
interface WsInternals {
  _receiver?: { _maxPayload: number };
  _extensions?: Record<string, { _maxPayload: number } | undefined>;
}

function capMessages(conn: EngineConnection, bytes: number): void {
  if (conn.transport.name !== 'websocket') return;
  const ws = conn.transport.socket;
  // Never thrown from a connection's event: without a receiver the message limit stays (the test tells).
  if (!ws?._receiver) return;
  ws._receiver._maxPayload = bytes;
  const inflater = ws._extensions?.['permessage-deflate'];
  if (inflater) inflater._maxPayload = bytes;
}

/**
 * Bounds what a client makes the server read before and after it is let in: small messages only until
 * its socket joins a namespace (the message limit from then on), a budget of message bytes per client
 * address past which its sockets are closed and new ones refused, and a rate of new connections per
 * address.
 */
export function limitFrames(io: Server, addressOf: (request: IncomingMessage) => string | null): void {
  const joined = new WeakSet<object>();
  const budget = new Allowance(ADDRESS_BYTES_PER_10_S, 10);
  const connections = new Allowance(ADDRESS_CONNECTIONS_PER_10_S, 10);
  io.engine.opts.allowRequest = (request, callback) => {
    const address = addressOf(request);
    if (address === null) return callback(null, true);
    Promise.all([connections.take(address), budget.spent(address)])
      .then(([room, spent]) =>
        callback(room && !spent ? null : 'too many connections or messages from this address: try again in 10 s', room && !spent),
      )
      .catch(() => callback('cannot check this address now', false));
  };
  io.engine.on('connection', (conn: EngineConnection) => {
    const address = addressOf(conn.request);
    capMessages(conn, BEFORE_JOIN_BYTES);
    conn.on('upgrade', () => capMessages(conn, joined.has(conn) ? LIMITS.maxMessageBytes : BEFORE_JOIN_BYTES));
    conn.on('packet', (packet) => {
      if (packet.type !== 'message' || address === null) return;
      const bytes = typeof packet.data === 'string' ? Buffer.byteLength(packet.data) : ((packet.data as Buffer | undefined)?.length ?? 0);
      void budget.take(address, Math.max(1, bytes)).then((room) => {
        if (!room) conn.close();
      });
    });
  });
  const letIn = (socket: Socket) => {
    if (joined.has(socket.conn)) return;
    joined.add(socket.conn);
    capMessages(socket.conn as unknown as EngineConnection, LIMITS.maxMessageBytes);
  };
  io.on('connection', letIn);
  io.on('new_namespace', (namespace: Namespace) => namespace.on('connection', letIn));
}
