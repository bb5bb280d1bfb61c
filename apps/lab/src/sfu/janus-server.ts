import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeTcpPort, ownAddress } from './host.js';
import { spawnTied, stopTied } from '../tied-process.js';

/** Debian's Janus (`apt-get install janus`), which `npm test` installs; JANUS_PATH for another build. */
export const JANUS = process.env.JANUS_PATH ?? '/usr/bin/janus';

/** Where Debian (per architecture) or a source build keeps Janus's plugins and transports. */
const LIBRARY_DIRS = ['/usr/lib/x86_64-linux-gnu/janus', '/usr/lib/aarch64-linux-gnu/janus', '/usr/lib/janus', '/opt/janus/lib/janus'];

/** How long Janus may take to answer its first request: it starts in about a second here. */
const START_TIMEOUT_MS = 15_000;

/**
 * Where Janus reports its own view of the room (who joined and left, what each published and subscribed
 * to): rtcscope's SFU-events route, its API key sent as HTTP basic auth, the only kind Janus's sample
 * event handler sends.
 */
export interface JanusEventsTarget {
  url: string;
  apiKey: string;
}

/** What the SFU's view needs: session, handle, WebRTC and plugin events (not the per-second media stats). */
const REPORTED_EVENTS = 'sessions,handles,webrtc,plugins';

/**
 * A Janus WebRTC server for one lab run, its VideoRoom plugin the SFU. It loads only what the lab uses
 * (VideoRoom, the HTTP transport) from a folder of links, so the machine's own /etc/janus never
 * matters. It gathers ICE candidates on one of the machine's own addresses (`address`): Janus takes no
 * candidate on 127.0.0.1, so the runner's relays, which carry every participant's media to it over that
 * participant's emulated links, face it there.
 */
export class JanusServer {
  readonly kind = 'janus';

  private constructor(
    private readonly process: ChildProcess,
    /** The Janus API's root, e.g. http://127.0.0.1:38211/janus. */
    readonly url: string,
    /** The address its ICE candidates are on. */
    readonly address: string,
    private readonly logFile: string,
  ) {}

  static async start(dir: string, events?: JanusEventsTarget): Promise<JanusServer> {
    if (!existsSync(JANUS))
      throw new Error(
        `the scenario runs through an SFU, and this agent has no Janus at ${JANUS}: install it (apt-get install janus) or set JANUS_PATH`,
      );
    const library = LIBRARY_DIRS.find((d) => existsSync(join(d, 'plugins', 'libjanus_videoroom.so')));
    if (!library) throw new Error(`Janus's VideoRoom plugin is in none of ${LIBRARY_DIRS.join(', ')}: install Debian's janus package`);
    const address = ownAddress();
    const port = await freeTcpPort();
    writeConfig(dir, library, port, address, events);
    const logFile = join(dir, 'janus.log');
    const args = [
      '--config',
      join(dir, 'janus.jcfg'),
      '--configs-folder',
      dir,
      '--disable-colors',
      '--log-file',
      logFile,
      '--disable-stdout',
    ];
    const child = spawnTied(JANUS, args);
    const server = new JanusServer(child, `http://127.0.0.1:${port}/janus`, address, logFile);
    try {
      await server.untilAnswering();
      return server;
    } catch (err) {
      server.close();
      throw err;
    }
  }

  /** The last lines Janus logged: what a failed start shows of the SFU's side. */
  private logTail(lines = 20): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no log)';
  }

  close(): void {
    stopTied(this.process);
  }

  private async untilAnswering(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let exited = false;
    this.process.once('exit', () => (exited = true));
    while (Date.now() < deadline && !exited) {
      const info = await fetch(this.url, { method: 'POST', body: JSON.stringify({ janus: 'info', transaction: 'start' }) }).catch(
        () => null,
      );
      if (info?.ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(
      `Janus did not answer on ${this.url} ${exited ? '(it exited)' : `within ${START_TIMEOUT_MS / 1000} s`}; its log ends:\n${this.logTail()}`,
    );
  }
}

/**
 * The configuration folder: janus.jcfg and the HTTP transport's (VideoRoom rooms are made over the API).
 * Only the modules linked into the folder's plugins/, transports/ and events/ are loaded: the sample event
 * handler (HTTP POSTs of JSON) when the events go somewhere.
 */
function writeConfig(dir: string, library: string, port: number, address: string, events: JanusEventsTarget | undefined): void {
  const modules = {
    plugins: ['libjanus_videoroom.so'],
    transports: ['libjanus_http.so'],
    events: events ? ['libjanus_sampleevh.so'] : [],
    loggers: [],
  };
  for (const [kind, files] of Object.entries(modules)) {
    mkdirSync(join(dir, kind), { recursive: true });
    for (const f of files) if (!existsSync(join(dir, kind, f))) symlinkSync(join(library, kind, f), join(dir, kind, f));
  }
  const quote = (s: string) => JSON.stringify(s);
  writeFileSync(
    join(dir, 'janus.jcfg'),
    `general: {
  configs_folder = ${quote(dir)}
  plugins_folder = ${quote(join(dir, 'plugins'))}
  transports_folder = ${quote(join(dir, 'transports'))}
  events_folder = ${quote(join(dir, 'events'))}
  loggers_folder = ${quote(join(dir, 'loggers'))}
  server_name = "rtcscope-lab"
  session_timeout = 60
}
nat: {
  ice_enforce_list = ${quote(address)}
  full_trickle = false
}
events: {
  broadcast = ${events ? 'true' : 'false'}
  stats_period = 0
}
`,
  );
  if (events) {
    writeFileSync(
      join(dir, 'janus.eventhandler.sampleevh.jcfg'),
      `general: {
  enabled = true
  events = ${quote(REPORTED_EVENTS)}
  grouping = true
  json = "compact"
  backend = ${quote(events.url)}
  backend_user = "rtcscope"
  backend_pwd = ${quote(events.apiKey)}
  max_retransmissions = 5
  retransmissions_backoff = 100
}
`,
    );
  }
  writeFileSync(
    join(dir, 'janus.transport.http.jcfg'),
    `general: {
  json = "plain"
  base_path = "/janus"
  http = true
  port = ${port}
  ip = "127.0.0.1"
  https = false
}
admin: {
  admin_http = false
}
`,
  );
  writeFileSync(join(dir, 'janus.plugin.videoroom.jcfg'), 'general: {\n}\n');
}
