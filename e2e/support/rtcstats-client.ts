import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { WebSocketServer } from 'ws';

const require = createRequire(import.meta.url);

/**
 * The real `@jitsi/rtcstats` client bundled for a page (it ships ES modules for an app's bundler):
 * `startRtcstats(endpoint)` wraps RTCPeerConnection, polls getStats every second and sends each
 * entry to the endpoint, as it does inside Jitsi Meet.
 */
export async function rtcstatsClientBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `
        import rtcstatsInit from '@jitsi/rtcstats/rtcstats.js';
        import traceInit from '@jitsi/rtcstats/trace-ws.js';
        window.startRtcstats = (endpoint) => {
          const trace = traceInit({ endpoint, meetingFqn: 'e2e', onCloseCallback: () => {}, obfuscate: false });
          rtcstatsInit({ statsEntry: trace.statsEntry }, { pollInterval: 1000, useLegacy: false });
          trace.connect(false);
          window.rtcstatsTrace = trace;
        };`,
      resolveDir: dirname(require.resolve('@jitsi/rtcstats/package.json')),
    },
    bundle: true,
    format: 'iife',
    // The client imports a folder of @jitsi/js-utils that the package's own exports map no longer allows.
    plugins: [
      {
        name: 'js-utils-folder',
        setup(b) {
          b.onResolve({ filter: /^@jitsi\/js-utils\/browser-detection$/ }, (args) =>
            b.resolve(`${args.path}/index.js`, { resolveDir: args.resolveDir, kind: args.kind }),
          );
        },
      },
    ],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * What an rtcstats server does with a client's stream: accepts its WebSocket, tells it to start
 * sending, and writes each entry it sends as a line of the dump file, in the order sent.
 */
export async function rtcstatsCollector(): Promise<{ url: string; lines: string[]; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const lines: string[] = [];
  server.on('connection', (socket) => {
    socket.send(JSON.stringify({ type: 'sn', body: { value: 0, state: 'initial' } }));
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { type: string; data?: unknown };
      if (message.type !== 'stats-entry' && message.type !== 'identity') return;
      const data = typeof message.data === 'string' ? (JSON.parse(message.data) as unknown[]) : (message.data as unknown[]);
      lines.push(JSON.stringify(data));
    });
  });
  const address = server.address();
  return {
    url: `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    lines,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
