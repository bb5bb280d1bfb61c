import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** CPU seconds used so far by the processes `match` picks (with what their exited children used). */
export function cpuSeconds(match: (pid: number, comm: string) => boolean): number {
  let ticks = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!match(Number(p), comm)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, plus cutime + cstime: what exited children (PostgreSQL backends) used.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // the process ended while we looked
    }
  }
  return ticks / 100;
}

/**
 * Busy and total CPU time of the whole machine so far, in seconds (from /proc/stat), and of that the
 * time the hypervisor ran something else while this machine wanted its cores (steal).
 */
export function machineCpu(): { busy: number; total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy: busy / 100, total: (busy + idle! + iowait!) / 100, steal: steal! / 100 };
}

/**
 * Seconds so far in which some (and all) non-idle tasks waited for `resource` (Linux pressure stall
 * information): CPU pressure is run-queue wait, I/O pressure is waiting on the disk.
 */
export function pressure(resource: 'cpu' | 'io'): { some: number; full: number } {
  const total = (kind: string) =>
    Number(new RegExp(`^${kind} .*total=(\\d+)`, 'm').exec(readFileSync(`/proc/pressure/${resource}`, 'utf8'))?.[1] ?? NaN) / 1e6;
  return { some: total('some'), full: total('full') };
}

/** A process's peak resident memory so far, in MB (VmHWM). */
export function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

/** Starts a process's peak resident memory again from what it holds now (Linux `clear_refs` 5). */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** A process's resident memory now, in MB (VmRSS). */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}
