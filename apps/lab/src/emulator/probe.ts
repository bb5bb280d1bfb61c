import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';
import { namespaceName, removeOrphans } from './namespaces.js';

const run = promisify(execFile);

export interface HostCapabilities {
  /** Network namespaces can be made (root or CAP_NET_ADMIN + CAP_SYS_ADMIN). */
  netns: boolean;
  /** The kernel has the qdiscs a kernel backend needs. */
  netem: boolean;
  tbf: boolean;
  htb: boolean;
  /** What failed and why, in the tools' own words, and what to grant. */
  notes: string[];
}

/**
 * Finds out what link emulation this host allows, in a throw-away network namespace that is removed
 * again whatever happens, short of this process being killed: so namespaces left by killed lab
 * processes are removed first. Nothing else is touched.
 */
export async function probeHost(): Promise<HostCapabilities> {
  const caps: HostCapabilities = { netns: false, netem: false, tbf: false, htb: false, notes: [] };
  if (userInfo().uid !== 0) {
    caps.notes.push(
      'kernel emulation needs root, or CAP_NET_ADMIN and CAP_SYS_ADMIN for ip netns and tc (e.g. sudo setcap cap_net_admin,cap_sys_admin+ep "$(command -v node)")',
    );
    return caps;
  }
  const ns = namespaceName('probe');
  try {
    await removeOrphans();
    await run('ip', ['netns', 'add', ns], { timeout: 5000 });
    caps.netns = true;
  } catch (err) {
    caps.notes.push(`ip netns add failed: ${message(err)}`);
    return caps;
  }
  const inNs = (args: string[]) => run('ip', ['netns', 'exec', ns, ...args], { timeout: 5000 });
  try {
    await inNs(['ip', 'link', 'set', 'lo', 'up']);
    const qdisc = async (name: 'netem' | 'tbf' | 'htb', args: string[]) => {
      try {
        await inNs(['tc', 'qdisc', 'replace', 'dev', 'lo', 'root', ...args]);
        caps[name] = true;
      } catch (err) {
        caps.notes.push(`tc ${name}: ${message(err)}`);
      }
    };
    await qdisc('netem', ['netem', 'delay', '1ms']);
    await qdisc('tbf', ['tbf', 'rate', '1mbit', 'burst', '32kbit', 'latency', '50ms']);
    await qdisc('htb', ['handle', '1:', 'htb', 'default', '1']);
  } finally {
    await run('ip', ['netns', 'delete', ns], { timeout: 5000 }).catch(() => {});
  }
  return caps;
}

export const BACKENDS = {
  relay: 'user-space relay',
  kernel: 'kernel rate (tbf) + user-space delay and loss',
} as const;
export type Backend = (typeof BACKENDS)[keyof typeof BACKENDS];

export interface BackendChoice {
  backend: Backend;
  why: string;
}

/**
 * The backend runs use. With namespaces and tbf the kernel carries rate and queue, so TCP cross
 * traffic and calls compete in one real queue; delay, jitter and loss stay in user space until a
 * netem backend exists. Without them the user-space relay emulates everything for UDP.
 */
export function chooseBackend(caps: HostCapabilities): BackendChoice {
  if (!caps.netns)
    return {
      backend: BACKENDS.relay,
      why: 'no network namespaces here (see notes); the relay needs no privileges, but cannot carry TCP cross traffic',
    };
  if (!caps.tbf)
    return { backend: BACKENDS.relay, why: 'this kernel has no tbf qdisc; the relay emulates rate, delay, jitter and loss itself' };
  const netem = caps.netem
    ? 'netem is available, but rtcscope applies delay and loss in user space for now'
    : 'this kernel has no netem, so delay, jitter and loss are applied in user space';
  return { backend: BACKENDS.kernel, why: `tbf in a network namespace per link carries rate and queue for calls and TCP alike; ${netem}` };
}

function message(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(err)).trim().split('\n')[0] ?? '';
}
