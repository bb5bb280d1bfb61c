import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import type pg from 'pg';

/** Whether a connection's backend runs at the lowest CPU priority, and if not, why. */
export type Priority = { lowest: true } | { lowest: false; why: string };

const LOOPBACK = new Set(['127.0.0.1', '::1']);
/** The weakest claim on the CPU a process can have (Linux nice 19). */
const LOWEST = 19;

/**
 * Lowers the CPU priority of the PostgreSQL process serving `client`, when it runs on this machine (a
 * Unix socket or loopback connection, and a `postgres` process of that id): work on it then takes
 * only the CPU time that nothing else wants. A process's priority cannot be raised again without
 * privileges, so such a connection must serve background work only, for its whole life.
 */
export async function lowerPriority(client: pg.ClientBase): Promise<Priority> {
  const { rows } = await client.query<{ pid: number; addr: string | null }>(
    'SELECT pg_backend_pid() AS pid, host(inet_server_addr()) AS addr',
  );
  const { pid, addr } = rows[0]!;
  if (addr !== null && !LOOPBACK.has(addr)) return { lowest: false, why: `PostgreSQL is reached at ${addr}, not on this machine` };
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres')
      return { lowest: false, why: `process ${pid} of this machine is not PostgreSQL's` };
    setPriority(pid, LOWEST);
    lowerSession(pid);
    return { lowest: true };
  } catch (err) {
    return { lowest: false, why: (err as Error).message };
  }
}

/**
 * With autogroup scheduling (`kernel.sched_autogroup_enabled`, on by default in many distributions'
 * kernels), Linux shares CPU time between sessions first and a process's nice counts only
 * within its session. PostgreSQL makes each backend a session of its own, so its nice alone left
 * compaction competing with the server like any process: the session's nice must be lowered too.
 * Only a backend that leads its own session: lowering a shared one would slow every process in it.
 */
function lowerSession(pid: number): void {
  const autogroup = `/proc/${pid}/autogroup`;
  if (!existsSync(autogroup)) return;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  if (session !== pid) throw new Error(`process ${pid} shares session ${session} with other processes`);
  writeFileSync(autogroup, String(LOWEST));
}
