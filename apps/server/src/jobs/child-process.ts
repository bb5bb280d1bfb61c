import type { ChildProcess } from 'node:child_process';

/**
 * A helper process the server runs beside itself (a lab agent, a TURN server): its lines go to stderr
 * with `prefix` where `shown` says so, an exit nobody asked for is said, and it is taken along when the
 * server's process exits. `stop` ends it and resolves once it has exited.
 */
export function supervise(
  child: ChildProcess,
  prefix: string,
  exited: string,
  shown: (line: string) => boolean = () => true,
): { stop(): Promise<void> } {
  const relay = (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line.trim() && shown(line)) process.stderr.write(`[${prefix}] ${line.trim()}\n`);
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  let stopping = false;
  child.once('exit', (code, signal) => !stopping && process.stderr.write(`[${prefix}] exited (${signal ?? code}); ${exited}\n`));
  // Until it has exited: a shutdown that gives up waiting for it still takes it along.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
