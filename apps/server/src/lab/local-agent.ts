import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LAB_CLI = join(dirname(fileURLToPath(import.meta.url)), '../../../lab/src/cli.ts');

/**
 * A local install's lab agent: the lab CLI's `agent` command in a child process, so campaigns started
 * from the dashboard run on this host with no extra step. Its lines go to stderr with a prefix.
 */
export function startLocalAgent(server: string, token: string): { stop(): Promise<void> } {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', LAB_CLI, 'agent', '--server', server, '--name', 'local agent'], {
    env: { ...process.env, RTCSCOPE_AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const relay = (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line.trim()) process.stderr.write(`[lab agent] ${line}\n`);
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  let stopping = false;
  child.once(
    'exit',
    (code, signal) => !stopping && process.stderr.write(`[lab agent] exited (${signal ?? code}); campaigns wait for another agent\n`),
  );
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
