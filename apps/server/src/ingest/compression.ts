import type { ServerOptions } from 'socket.io';

/**
 * With `INGEST_COMPRESSION=on`, what clients send may come compressed (WebSocket's permessage-deflate,
 * which every browser offers and then uses for each message): the SDK's JSON batches shrink about
 * fivefold, each deflated against the ones before, for about a fifth more of the server's CPU per
 * sample (ws inflates each message on libuv's thread pool; docs/sizing.md). Within limits a busy node can keep: a 1 kB window per socket (a browser that will not
 * keep to it sends uncompressed), and nothing sent compressed (acknowledgements are tens of bytes, and
 * compressing live updates would cost a deflate per dashboard). The message limit holds for the
 * inflated message: a small frame that unpacks past it closes its socket.
 */
export const COMPRESSION: ServerOptions['perMessageDeflate'] = {
  clientMaxWindowBits: 10,
  serverMaxWindowBits: 10,
  serverNoContextTakeover: true,
  threshold: Number.POSITIVE_INFINITY,
};
