import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { WebSocketServer } from 'ws';

const require = createRequire(import.meta.url);

/**
 * The real `@jitsi/rtcstats` client bundled for a page (it ships ES modules for an app's bundler):
 * `startRtcstats(endpoint, pollIntervalMs = 1000)` wraps RTCPeerConnection, polls getStats at that
 * interval (Jitsi Meet's own is 10 s) and sends each entry to the endpoint, as it does inside Jitsi Meet:
 * descriptions without their SDP, as it sends them by default.
 */
export async function rtcstatsClientBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `
        import rtcstatsInit from '@jitsi/rtcstats/rtcstats.js';
        import traceInit from '@jitsi/rtcstats/trace-ws.js';
        window.startRtcstats = (endpoint, pollInterval = 1000) => {
          const trace = traceInit({ endpoint, meetingFqn: 'lab', onCloseCallback: () => {}, obfuscate: false });
          rtcstatsInit({ statsEntry: trace.statsEntry }, { pollInterval, useLegacy: false });
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
 * What an rtcstats server does with its clients' streams: accepts each one's WebSocket, tells it to start
 * sending, and writes each entry it sends as a line of that client's dump file, in the order sent. `dumps`
 * are the clients that sent anything, in the order they came: a page each. A page's first document
 * (about:blank, before it navigates) runs the client too and sends nothing, as it has no connection to
 * record: like rtcstats-server, which writes no dump for a session without entries, it has none.
 */
export async function rtcstatsCollector(): Promise<{ url: string; readonly dumps: string[][]; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  const clients: string[][] = [];
  server.on('connection', (socket) => {
    const lines: string[] = [];
    clients.push(lines);
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
    get dumps() {
      return clients.filter((lines) => lines.length > 0);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The newest stats time (ms since the epoch) a dump's lines hold: a `getstats` entry's fourth item (a sequence number may follow). */
export function rtcstatsUntil(lines: readonly string[]): number {
  const times = lines.filter((l) => l.startsWith('["getstats",')).map((l) => (JSON.parse(l) as unknown[])[3]);
  return Math.max(-Infinity, ...times.filter((t): t is number => typeof t === 'number'));
}
