import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Endpoint } from '../emulator/udp-relay.js';
import { freeTcpPort, freeUdpPort, ownAddress } from './host.js';
import { spawnTied, stopTied } from '../tied-process.js';
import { LiveKitWebhookRelay } from './livekit-webhooks.js';

const ROOT = join(import.meta.dirname, '../../../..');

/** The LiveKit release the lab runs, as the root package.json's `tools` names it (scripts/install-livekit.sh builds it). */
export const LIVEKIT_VERSION: string = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { tools: Record<string, string> })
  .tools['livekit-server']!;

/** Where `npm test` (scripts/install-livekit.sh) builds it; LIVEKIT_PATH for another build. */
export const LIVEKIT = process.env.LIVEKIT_PATH ?? join(ROOT, '.tools', `livekit-${LIVEKIT_VERSION}`, 'livekit-server');

/** How long LiveKit may take to answer: it starts in about a second here. */
const START_TIMEOUT_MS = 20_000;

/** Where a run's LiveKit webhooks (room, participant and track events) go on to: see LiveKitWebhookRelay. */
export type LiveKitEventsForward = (event: unknown) => Promise<boolean>;

/**
 * A LiveKit server for one lab run, with a configuration of its own: keys made for the run, ports it
 * picked, its HTTP and signalling on loopback, and its media on one UDP port of the machine's own
 * address (LiveKit, like Janus, gathers no candidate on 127.0.0.1). It runs ICE-lite, so it answers the
 * checks that reach it and starts none: each participant reaches it only through the relay over that
 * participant's emulated links (the lab points the participant's view of LiveKit's candidates at the
 * relay), never around it. No TURN, no TCP candidates, no external address.
 */
export class LiveKitServer {
  readonly kind = 'livekit';

  private constructor(
    private readonly process: ChildProcess,
    /** The signalling URL a client connects to, e.g. ws://127.0.0.1:38211. */
    readonly url: string,
    /** Where its media is: the one UDP port on the machine's own address. */
    readonly media: Endpoint,
    readonly apiKey: string,
    readonly apiSecret: string,
    private readonly logFile: string,
    private readonly webhooks: LiveKitWebhookRelay | null,
  ) {}

  /**
   * With `events`, LiveKit posts its webhooks (signed with the run's key) to a relay that hands each to
   * it; given a URL, straight there (a server's public webhook route, as a production LiveKit posts).
   */
  static async start(dir: string, events?: LiveKitEventsForward | URL): Promise<LiveKitServer> {
    if (!existsSync(LIVEKIT))
      throw new Error(
        `the scenario runs through LiveKit, and this agent has no livekit-server at ${LIVEKIT}: build it with 'bash scripts/install-livekit.sh' (npm test does) or set LIVEKIT_PATH`,
      );
    const address = ownAddress();
    const [port, udpPort] = await Promise.all([freeTcpPort(), freeUdpPort()]);
    const apiKey = `lab${randomBytes(6).toString('hex')}`;
    const apiSecret = randomBytes(32).toString('hex');
    const webhooks = typeof events === 'function' ? await LiveKitWebhookRelay.open(events) : null;
    const webhookUrl = events instanceof URL ? events.toString() : webhooks?.url;
    // JSON is YAML: LiveKit reads it as its configuration file.
    const config = {
      port,
      bind_addresses: ['127.0.0.1'],
      rtc: {
        udp_port: udpPort,
        tcp_port: 0,
        node_ip: address,
        use_external_ip: false,
        use_ice_lite: true,
        use_mdns: false,
        ips: { includes: [`${address}/32`] },
      },
      keys: { [apiKey]: apiSecret },
      room: { auto_create: true, empty_timeout: 60 },
      turn: { enabled: false },
      logging: { level: 'info', json: false },
      ...(webhookUrl ? { webhook: { api_key: apiKey, urls: [webhookUrl] } } : {}),
    };
    writeFileSync(join(dir, 'livekit.yaml'), JSON.stringify(config, null, 2));
    const logFile = join(dir, 'livekit.log');
    const log = openSync(logFile, 'a');
    const child = spawnTied(LIVEKIT, ['--config', join(dir, 'livekit.yaml')], log);
    closeSync(log);
    const server = new LiveKitServer(child, `ws://127.0.0.1:${port}`, { address, port: udpPort }, apiKey, apiSecret, logFile, webhooks);
    try {
      await server.untilAnswering(port);
      return server;
    } catch (err) {
      await server.close();
      throw err;
    }
  }

  /** The last lines LiveKit logged: what a failed start or call shows of the SFU's side. */
  logTail(lines = 20): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no log)';
  }

  /** Its HTTP root, which answers "OK": where a LiveKit call's pages stand, as an app's own page would. */
  get httpUrl(): string {
    return this.url.replace(/^ws:/, 'http:') + '/';
  }

  /** Stops LiveKit, letting it post what its webhooks still hold (participants' leaving) before their relay closes. */
  async close(): Promise<void> {
    const exited = this.process.exitCode !== null || this.process.signalCode !== null;
    const gone = exited ? Promise.resolve() : new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    // It has 5 s before it is killed (spawnTied).
    stopTied(this.process);
    await gone;
    await this.webhooks?.close();
  }

  private async untilAnswering(port: number): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let exited = false;
    this.process.once('exit', () => (exited = true));
    while (Date.now() < deadline && !exited) {
      const answer = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
      if (answer?.ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(
      `LiveKit did not answer on ${this.url} ${exited ? '(it exited)' : `within ${START_TIMEOUT_MS / 1000} s`}; its log ends:\n${this.logTail()}`,
    );
  }
}
