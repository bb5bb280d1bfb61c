import type { Metadata, PrecallReport } from '@rtcscope/protocol';
import { Monitor, randomId } from '../monitor.js';
import { checkCamera, checkMicrophone } from './devices.js';
import { measureThroughRelay } from './media.js';
import { checkTransports, gatherCandidates } from './network.js';
import { judge } from './verdict.js';

export interface PrecallOptions {
  /** Base URL of the rtcscope server. */
  server: string;
  /** The project's ingest key (publishable). */
  ingestKey: string;
  /** The app's own ICE servers; by default the project's TURN servers, with credentials that expire, from rtcscope. */
  iceServers?: RTCIceServer[];
  /** Seconds of media through the TURN server, over five rising rates of at least 3 s each; default 15 (less when the link fills early). */
  durationS?: number;
  /** Test the camera at this size (default 1280×720), or not at all. */
  camera?: boolean | { width: number; height: number };
  microphone?: boolean;
  /** Stored with the test like a call's (network type, office, app version…), for insights. */
  metadata?: Metadata;
  /** A support ticket's reference, shown with the result in the dashboard. */
  ticket?: string;
  onProgress?: (progress: PrecallProgress) => void;
}

export interface PrecallProgress {
  step: 'devices' | 'network' | 'connectivity' | 'media' | 'sending' | 'done';
  /** Share of the whole test done, 0–1. */
  done: number;
  message: string;
}

export interface PrecallResult extends PrecallReport {
  /** The test's id: its call in the dashboard is `precall-<testId>`. */
  testId: string;
  /** The result reached the project; else why not (the test itself still ran). */
  stored: boolean;
  storeError?: string;
}

const NETWORK_TIMEOUT_MS = 10_000;
const NO_TURN =
  'No TURN server is set for this project, so the network could not be tested: an administrator sets one on the project page.';

/**
 * Tests the devices and the network before a call: the camera and microphone, the ICE candidates the
 * browser gathers, each way to the TURN server (UDP, TCP, TLS) with its set-up time, then media through
 * the TURN server at rising rates for throughput, round trip, jitter and loss. Its samples are streamed
 * as a call of its own kind, judged like calls; the result, with a verdict in words, is stored with it.
 */
export async function runPrecallTest(options: PrecallOptions): Promise<PrecallResult> {
  const start = Date.now();
  const testId = randomId();
  const progress = (step: PrecallProgress['step'], done: number, message: string) => options.onProgress?.({ step, done, message });
  const monitor = new Monitor(
    {
      server: options.server,
      ingestKey: options.ingestKey,
      callId: `precall-${testId}`,
      participantId: 'tester',
      ...(options.metadata ? { metadata: options.metadata } : {}),
    },
    'precall',
  );
  try {
    progress('devices', 0, 'Checking the camera and microphone');
    const asked = typeof options.camera === 'object' ? options.camera : { width: 1280, height: 720 };
    const [camera, microphone] = await Promise.all([
      options.camera === false ? ({ status: 'not-asked', asked } as const) : checkCamera(asked),
      options.microphone === false ? ({ status: 'not-asked' } as const) : checkMicrophone(),
    ]);

    progress('network', 0.1, 'Gathering network candidates');
    let iceServers = options.iceServers;
    let noTurn: string | undefined;
    if (!iceServers) {
      const answer = await monitor.iceServers(NETWORK_TIMEOUT_MS);
      iceServers = answer.ok ? answer.iceServers : [];
      if (!answer.ok) noTurn = `The TURN servers could not be had from rtcscope (${answer.error}), so the network could not be tested.`;
    }
    // At once: behind a firewall that drops packets, each waits out its timeout.
    const transportsChecked = checkTransports(iceServers, NETWORK_TIMEOUT_MS);
    const gathering = await gatherCandidates(iceServers, NETWORK_TIMEOUT_MS);
    progress('connectivity', 0.2, 'Trying UDP, TCP and TLS to the TURN server');
    const transports = await transportsChecked;
    if (!transports.length) noTurn ??= NO_TURN;
    const working = transports.filter((t) => t.connected);
    let media: PrecallReport['media'] = null;
    let mediaError: string | undefined;
    if (working.length) {
      progress('media', 0.3, 'Sending video through the TURN server');
      const urls = new Set(working.map((t) => t.url));
      const usable = iceServers
        .map((s) => ({ ...s, urls: (Array.isArray(s.urls) ? s.urls : [s.urls]).filter((u) => urls.has(u)) }))
        .filter((s) => s.urls.length);
      media = await measureThroughRelay({
        iceServers: usable,
        durationS: options.durationS ?? 15,
        timeoutMs: NETWORK_TIMEOUT_MS,
        fallbackTransport: working[0]!.transport,
        onJoined: (pair) => {
          monitor.addPeerConnection(pair.a, { label: 'relay-send' });
          monitor.addPeerConnection(pair.b, { label: 'relay-receive' });
          return async () => {
            await monitor.sampleAll();
            monitor.removePeerConnection(pair.a);
            monitor.removePeerConnection(pair.b);
          };
        },
        onProgress: (done) => progress('media', 0.3 + 0.65 * done, 'Sending video through the TURN server'),
      }).catch((err: unknown) => {
        mediaError = (err as Error).message;
        return null;
      });
    }

    const devices = { camera, microphone };
    const report: PrecallReport = {
      v: 1,
      ...(options.ticket ? { ticket: options.ticket.slice(0, 128) } : {}),
      ...judge({ devices, transports, media, ...(noTurn ? { noTurn } : {}), ...(mediaError ? { mediaError } : {}) }),
      testTiming: { start, durationMs: Date.now() - start },
      devices,
      gathering,
      transports,
      media,
    };
    progress('sending', 0.95, 'Sending the result');
    const ack = await monitor.sendPrecallResult(report);
    progress('done', 1, 'Done');
    return { ...report, testId, stored: ack.ok, ...(ack.ok ? {} : { storeError: ack.error }) };
  } finally {
    await monitor.close();
  }
}
