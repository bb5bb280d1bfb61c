import type { Server } from 'socket.io';
import { crossSite } from './same-site.js';

/**
 * socket.io's HTTP long-polling only for this server's own pages and for programs. The SDK reports from
 * customers' sites over WebSocket alone; the dashboard, which may fall back to polling, is served from
 * here; lab agents send no Origin. Another site's page polling would be answered as CORS allows, so the
 * server sends no CORS headers and refuses the handshake outright (said in words, before any session
 * is made) rather than leaving the browser to hide the answer.
 */
export function sameSitePolling(io: Server): void {
  const next = io.engine.opts.allowRequest;
  io.engine.opts.allowRequest = (request, callback) => {
    const transport = new URL(request.url ?? '/', 'http://socket').searchParams.get('transport');
    if (transport === 'polling' && crossSite(request.headers, request.headers.host))
      return callback("another site's page may not poll this server: connect over WebSocket", false);
    if (next) next(request, callback);
    else callback(null, true);
  };
}
