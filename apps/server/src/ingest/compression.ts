import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerOptions } from 'socket.io';

/**
 * With `INGEST_COMPRESSION=on`, what clients send may come compressed (WebSocket's permessage-deflate,
 * which every browser offers and then uses for each message): the SDK's JSON batches shrink about
 * fivefold, each deflated against the ones before, for about a fifth more of the server's CPU per
 * sample (ws inflates each message on libuv's thread pool; docs/sizing.md). Within limits a busy node
 * can keep: a 1 kB window per socket (a browser whose offer does not let the server set it sends
 * uncompressed: `windowedOffers`), and nothing sent compressed (acknowledgements are tens of bytes, and
 * compressing live updates would cost a deflate per dashboard). The message limit holds for the
 * inflated message: a small frame that unpacks past it closes its socket.
 */
export const COMPRESSION: ServerOptions['perMessageDeflate'] = {
  clientMaxWindowBits: 10,
  serverMaxWindowBits: 10,
  serverNoContextTakeover: true,
  threshold: Number.POSITIVE_INFINITY,
};

/**
 * The offers of a `Sec-WebSocket-Extensions` header that COMPRESSION can take (undefined: none is left).
 * ws refuses the whole handshake (400) when every permessage-deflate offer lacks `client_max_window_bits`
 * while the server sets the client's window, and Firefox ESR 153 offers plain `permessage-deflate`
 * (Chromium 156 adds the parameter): with compression on, no Firefox page could connect. Its offer is
 * dropped instead, and it sends uncompressed.
 */
export function windowedOffers(header: string): string | undefined {
  const kept = header
    .split(',')
    .map((offer) => offer.trim())
    .filter((offer) => {
      const [name, ...params] = offer.split(';').map((part) => part.trim());
      return name !== 'permessage-deflate' || params.some((param) => param.split('=')[0]!.trim() === 'client_max_window_bits');
    });
  return kept.length ? kept.join(', ') : undefined;
}

/** Engine.IO middleware: an upgrade's extension offers cut to those COMPRESSION can take, before ws reads them. */
export function keepWindowedOffers(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  const header = req.headers['sec-websocket-extensions'];
  if (header !== undefined) {
    const kept = windowedOffers(header);
    if (kept === undefined) delete req.headers['sec-websocket-extensions'];
    else req.headers['sec-websocket-extensions'] = kept;
  }
  next();
}
