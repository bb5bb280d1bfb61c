import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PREFIX = 'rts-';

/**
 * Every namespace the lab makes carries its process id, so one left by a process that was killed
 * before it could delete it is known by that id no longer running.
 */
export function namespaceName(tag: string): string {
  return `${PREFIX}${process.pid}-${tag}`;
}

/** Deletes the namespaces of lab processes that no longer run (another may be deleting them too). */
export async function removeOrphans(): Promise<void> {
  const { stdout } = await run('ip', ['netns', 'list'], { timeout: 5000 });
  for (const line of stdout.split('\n')) {
    const m = new RegExp(`^(${PREFIX}(\\d+)-\\S+)`).exec(line.trim());
    if (!m || alive(Number(m[2]))) continue;
    await run('ip', ['netns', 'delete', m[1]!], { timeout: 5000 }).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
