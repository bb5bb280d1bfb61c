import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { namespaceName, removeOrphans } from './namespaces.js';
import type { Endpoint } from './udp-relay.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

/** 198.18.0.0/15 is set aside for benchmarking networks (RFC 2544): it collides with no real one. */
function subnet(index: number): { root: string; ns: string } {
  const base = (198 << 24) + (18 << 16) + (index % 32_768) * 4;
  const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  return { root: ip(base + 1), ns: ip(base + 2) };
}

let counter = 0;

/**
 * One direction of a link carried by the kernel: a network namespace joined to the root namespace
 * by a veth pair. The root end's egress holds the rate limit (tbf); a reflector process inside the
 * namespace sends every datagram back, and is the far end of TCP bulk flows. So UDP relayed through
 * here and TCP flows to `tcpTarget` queue in one real kernel queue and compete for one rate.
 */
export class LinkNamespace {
  private tc: Promise<unknown> = Promise.resolve();
  private tcpListeners: ((port: number, bytes: number, at: number) => void)[] = [];
  readonly errors: string[] = [];

  private constructor(
    readonly name: string,
    private readonly device: string,
    readonly rootAddress: string,
    readonly udpTarget: Endpoint,
    readonly tcpTarget: Endpoint,
    private readonly reflector: ChildProcess,
  ) {}

  /** Creates the namespace and starts its reflector, which returns datagrams to `rootPort`. */
  static async create(rootPort: (rootAddress: string) => Promise<number>): Promise<LinkNamespace> {
    await removeOrphans();
    const index = (process.pid * 16 + counter++) % 32_768;
    const name = namespaceName(String(counter));
    const device = `rts${index}a`;
    const peer = `rts${index}b`;
    const { root, ns } = subnet(index);
    const ip = (...args: string[]) => run('ip', args, { timeout: 5000 });
    await ip('netns', 'add', name);
    try {
      await ip('link', 'add', device, 'type', 'veth', 'peer', 'name', peer, 'netns', name);
      await ip('addr', 'add', `${root}/30`, 'dev', device);
      await ip('link', 'set', device, 'up');
      await pinTcp(ns, device);
      await ip('netns', 'exec', name, 'ip', 'addr', 'add', `${ns}/30`, 'dev', peer);
      await ip('netns', 'exec', name, 'ip', 'link', 'set', peer, 'up');
      await ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
      const port = await rootPort(root);
      const reflector = spawn(
        'ip',
        ['netns', 'exec', name, process.execPath, '--import', 'tsx', join(here, 'reflector.ts'), ns, root, String(port)],
        {
          cwd: here,
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      const [udpPort, tcpPort] = await readyPorts(reflector);
      const link = new LinkNamespace(name, device, root, { address: ns, port: udpPort }, { address: ns, port: tcpPort }, reflector);
      reflector.stdout?.on('data', (d: Buffer) => link.parse(d.toString()));
      return link;
    } catch (err) {
      await ip('netns', 'delete', name).catch(() => {});
      throw err;
    }
  }

  /**
   * Sets the rate and the queue in front of it (as ms at that rate; tail drop when full). Changes are
   * applied in order, each a `tc` call of a few ms; a failure is kept in `errors`.
   */
  setRate(rateKbps: number | null, queueMs: number): void {
    const args =
      rateKbps === null
        ? ['qdisc', 'del', 'dev', this.device, 'root']
        : ['qdisc', 'replace', 'dev', this.device, 'root', ...tbf(rateKbps, queueMs)];
    this.tc = this.tc.then(() =>
      run('tc', args, { timeout: 5000 }).catch((err: { stderr?: string }) => {
        // Removing a limit that is not there is fine.
        if (rateKbps === null && /No such file|Cannot find|handle of zero/i.test(err.stderr ?? '')) return;
        this.errors.push(`tc ${args.join(' ')}: ${(err.stderr ?? String(err)).trim()}`);
      }),
    );
  }

  /** The reflector's process id, for measuring what it costs. */
  get reflectorPid(): number | undefined {
    return this.reflector.pid;
  }

  /** Resolves when every rate change asked for so far has been applied. */
  settled(): Promise<unknown> {
    return this.tc;
  }

  /** Bytes received so far by the TCP flow from root-side port `port`, as the reflector counted them at `at` (epoch ms). */
  onTcpBytes(listener: (port: number, bytes: number, at: number) => void): void {
    this.tcpListeners.push(listener);
  }

  async close(): Promise<void> {
    this.reflector.stdin?.end();
    this.reflector.kill('SIGTERM');
    await this.tc;
    await run('ip', ['netns', 'delete', this.name], { timeout: 5000 }).catch(() => {});
  }

  private parse(text: string): void {
    for (const line of text.split('\n')) {
      const m = /^tcp (\d+) (\d+) (\d+)$/.exec(line.trim());
      if (m) for (const l of this.tcpListeners) l(Number(m[1]), Number(m[2]), Number(m[3]));
    }
  }
}

/**
 * TCP flows into the namespace use cubic, Linux's default since 2.6.19 and so most likely what the
 * papers' iperf flows ran (they do not say), whatever this host's default is (BBR probes bandwidth in cycles and reads a
 * fresh tbf's burst as hundreds of Mbit/s, so its flows neither hold a cap nor compete like cubic).
 * A host route carries the choice, so nothing else on the host changes; it goes with the veth. The
 * kernel also seeds new connections from what it cached about an address (ssthresh, RTT), and
 * addresses are reused across runs: that cache is dropped so every run starts the same.
 */
async function pinTcp(address: string, device: string): Promise<void> {
  await run('ip', ['route', 'add', `${address}/32`, 'dev', device, 'congctl', 'cubic'], { timeout: 5000 }).catch(
    (err: { stderr?: string }) => {
      throw new Error(
        `could not pin TCP cross traffic to cubic (does this kernel have tcp_cubic?): ${(err.stderr ?? String(err)).trim()}; 'lab run --backend relay' does without the kernel backend`,
      );
    },
  );
  // Fails when nothing is cached, which is the state wanted.
  await run('ip', ['tcp_metrics', 'delete', address], { timeout: 5000 }).catch(() => {});
}

/** tbf for `rateKbps` with a tail-drop queue of `queueMs` at that rate, and a burst of a few packets. */
export function tbf(rateKbps: number, queueMs: number): string[] {
  const bytesPerS = (rateKbps * 1000) / 8;
  const burst = Math.max(3200, Math.round(bytesPerS * 0.005));
  const limit = Math.max(burst + 1600, Math.round((bytesPerS * queueMs) / 1000));
  return ['tbf', 'rate', `${rateKbps}kbit`, 'burst', String(burst), 'limit', String(limit)];
}

function readyPorts(child: ChildProcess): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the link reflector did not start in 15 s: ${err}`)), 15_000);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', function ready(d: Buffer) {
      out += d.toString();
      const m = /ready (\d+) (\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout?.off('data', ready);
      resolve([Number(m[1]), Number(m[2])]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the link reflector exited with ${code}: ${err.trim()}`));
    });
  });
}
