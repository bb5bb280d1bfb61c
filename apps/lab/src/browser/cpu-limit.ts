import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerPage } from './peer.js';

/** Where cgroup v1's cpu controller is mounted on the lab's hosts (see ENVIRONMENT.md). */
const CGROUP_CPU = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

/** Whether this host can hold a page to a CPU limit: root, and cgroup v1's cpu controller. */
export function cpuLimitUsable(): { ok: boolean; why: string } {
  if (process.getuid?.() !== 0) return { ok: false, why: 'CPU limits need the lab to run as root' };
  if (!existsSync(join(CGROUP_CPU, 'cgroup.procs')))
    return { ok: false, why: `CPU limits need cgroup v1's cpu controller at ${CGROUP_CPU}` };
  return { ok: true, why: `cgroup v1 cpu controller at ${CGROUP_CPU}` };
}

/** CPU time (user + system, clock ticks) a process has used; 0 once it has ended. */
function cpuTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The processes pages run in: Chromium's renderers and Firefox's content processes. */
function pageProcesses(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmdline.includes('--type=renderer') || cmdline.includes('-contentproc');
      } catch {
        return false;
      }
    })
    .map(Number);
}

let groups = 0;

/**
 * Holds the process of `page` (where its browser encodes and decodes WebRTC media) to `cores` of CPU
 * time, as a slower device would be. Which process is the page's: the one whose CPU time jumps while
 * the page spins for a second and a half. Returns the undo, which puts what the group holds back and
 * removes the group.
 */
export async function limitCpu(page: PeerPage, cores: number): Promise<() => Promise<void>> {
  const usable = cpuLimitUsable();
  if (!usable.ok) throw new Error(usable.why);
  const before = new Map(pageProcesses().map((pid) => [pid, cpuTicks(pid)]));
  await page.evaluate(() => {
    const end = Date.now() + 1500;
    while (Date.now() < end);
  });
  const busiest = [...before].map(([pid, ticks]) => [pid, cpuTicks(pid) - ticks] as const).sort((a, b) => b[1] - a[1])[0];
  if (!busiest) throw new Error("no browser page process found to limit: is the page's browser Chromium or Firefox?");
  const [pid] = busiest;
  const group = join(CGROUP_CPU, `rtcscope-lab-${process.pid}-${++groups}`);
  mkdirSync(group);
  writeFileSync(join(group, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(group, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  // Chromium runs its audio threads at real-time priority where it may (as root): a group without a
  // real-time budget refuses them. They get the same share of the real-time period, at most all of it.
  if (existsSync(join(group, 'cpu.rt_runtime_us'))) {
    const rtPeriod = Number(readFileSync(join(CGROUP_CPU, 'cpu.rt_period_us'), 'utf8'));
    writeFileSync(join(group, 'cpu.rt_runtime_us'), String(Math.round(Math.min(cores, 0.9) * rtPeriod)));
  }
  try {
    writeFileSync(join(group, 'cgroup.procs'), String(pid));
  } catch (err) {
    rmdirSync(group);
    throw err;
  }
  return async () => {
    for (const held of readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        writeFileSync(join(CGROUP_CPU, 'cgroup.procs'), held);
      } catch {
        // the process has ended
      }
    }
    // A process still exiting holds the group (EBUSY) until it is gone: a page closed a moment before.
    for (let tries = 1; ; tries++) {
      try {
        rmdirSync(group);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || tries === 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
}
