import type { LiveClientEvents, LiveServerEvents } from '@rtcscope/protocol';
import { io, type Socket } from 'socket.io-client';
import { liveAuth } from './auth.js';

type LiveSocket = Socket<LiveServerEvents, LiveClientEvents>;

let socket: LiveSocket | null = null;

/** One socket per tab for all live subscriptions; socket.io reconnects on its own after a restart. */
export function liveSocket(): LiveSocket {
  if (!socket) {
    socket = io('/live', { auth: (cb) => cb(liveAuth()), transports: ['websocket', 'polling'] });
  }
  return socket;
}
