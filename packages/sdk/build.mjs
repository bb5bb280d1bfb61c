// Builds the SDK as an ES module and as one file for a <script> tag (global `RtcScope`).
import { dirname } from 'node:path';
import { build } from 'esbuild';

// The SDK talks WebSocket only: leaving engine.io's HTTP long-polling and WebTransport out of the
// bundle keeps it small. Every browser that has RTCPeerConnection has WebSocket.
const websocketOnly = {
  name: 'websocket-only',
  setup(b) {
    b.onLoad({ filter: /engine\.io-client[\\/]build[\\/]esm[\\/]transports[\\/]index\.js$/ }, (args) => ({
      contents: 'import { WS } from "./websocket.js"; export const transports = { websocket: WS };',
      resolveDir: dirname(args.path),
    }));
  },
};

const common = {
  entryPoints: ['src/index.ts'],
  bundle: true,
  minify: true,
  target: 'es2020',
  sourcemap: true,
  legalComments: 'none',
  plugins: [websocketOnly],
};
await build({ ...common, format: 'esm', outfile: 'dist/rtcscope.mjs' });
await build({ ...common, format: 'iife', globalName: 'RtcScope', outfile: 'dist/rtcscope.js' });
