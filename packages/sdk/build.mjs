// Builds the SDK as an ES module and as one file for a <script> tag (global `RtcScope`), and the same for the pre-call test.
import { dirname } from 'node:path';
import { build } from 'esbuild';

// The SDK talks WebSocket only: leaving engine.io's HTTP long-polling and WebTransport out of the
// bundle keeps it small (every browser that has RTCPeerConnection has WebSocket). engine.io-client's
// entry re-exports every transport, so it is narrowed to what socket.io-client uses.
const ENGINE_ENTRY = `
import { Socket } from "./socket.js";
import { WS } from "./transports/websocket.js";
export { Socket };
export const protocol = Socket.protocol;
export const transports = { websocket: WS };
export { installTimerFunctions } from "./util.js";
export { parse } from "./contrib/parseuri.js";
export { nextTick } from "./globals.js";
export { WS as WebSocket };
export const Fetch = undefined, NodeXHR = undefined, XHR = undefined, NodeWebSocket = undefined, WebTransport = undefined;
`;
const websocketOnly = {
  name: 'websocket-only',
  setup(b) {
    b.onLoad({ filter: /engine\.io-client[\\/]build[\\/]esm[\\/]transports[\\/]index\.js$/ }, (args) => ({
      contents: 'import { WS } from "./websocket.js"; export const transports = { websocket: WS };',
      resolveDir: dirname(args.path),
    }));
    b.onLoad({ filter: /engine\.io-client[\\/]build[\\/]esm[\\/]index\.js$/ }, (args) => ({
      contents: ENGINE_ENTRY,
      resolveDir: dirname(args.path),
    }));
    // Batches and acks are JSON: the SDK never sends binary, and the server never sends it any, so
    // socket.io's packing of binary attachments is left out too (a binary frame would be refused), and
    // so is engine.io's base64 decoding of binary, which only HTTP long-polling uses.
    b.onLoad({ filter: /engine\.io-parser[\\/]build[\\/]esm[\\/]contrib[\\/]base64-arraybuffer\.js$/ }, () => ({
      contents: 'export const decode = () => { throw new Error("rtcscope receives no binary"); };',
    }));
    b.onLoad({ filter: /socket\.io-parser[\\/]build[\\/]esm[\\/]is-binary\.js$/ }, () => ({
      contents: 'export const isBinary = () => false, hasBinary = () => false;',
    }));
    b.onLoad({ filter: /socket\.io-parser[\\/]build[\\/]esm[\\/]binary\.js$/ }, () => ({
      contents:
        'export const deconstructPacket = () => { throw new Error("rtcscope sends no binary"); }, reconstructPacket = deconstructPacket;',
    }));
  },
};

const common = {
  entryPoints: ['src/index.ts'],
  bundle: true,
  minify: true,
  target: 'es2022',
  sourcemap: true,
  legalComments: 'none',
  plugins: [websocketOnly],
};
await build({ ...common, format: 'esm', outfile: 'dist/rtcscope.mjs' });
await build({ ...common, format: 'iife', globalName: 'RtcScope', outfile: 'dist/rtcscope.js' });
// The pre-call test on its own (global `RtcScopePrecall`): pages that only monitor calls stay small.
const precall = { ...common, entryPoints: ['src/precall/index.ts'] };
await build({ ...precall, format: 'esm', outfile: 'dist/rtcscope-precall.mjs' });
await build({ ...precall, format: 'iife', globalName: 'RtcScopePrecall', outfile: 'dist/rtcscope-precall.js' });
