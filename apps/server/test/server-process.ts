import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface NodeProcess {
  process: ChildProcess;
  /** The first match of the `ready` pattern's first group. */
  ready: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export type ServerProcess = NodeProcess & { url: string };

/**
 * Runs a TypeScript entry point of this repository in its own process and waits until its output
 * matches `ready`. `node --import tsx` keeps it one process, so a kill reaches the program itself.
 */
export async function startNodeProcess(o: {
  entry: string;
  args?: string[];
  env: Record<string, string>;
  ready: RegExp;
}): Promise<NodeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repo, o.entry), ...(o.args ?? [])], {
    cwd: repo,
    env: { ...process.env, LOG_LEVEL: 'warn', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test that dies must not leave its processes running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${o.entry} was not ready in 60 s:\n${output}`)), 60_000);
    child.stdout?.on('data', () => {
      const m = o.ready.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? m[0]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${o.entry} exited with ${code}:\n${output}`));
    });
  });
  return {
    process: child,
    ready,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Runs the product's own entry point, as the README's start command does, and waits until it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const p = await startNodeProcess({ entry: 'apps/server/src/main.ts', env, ready: /rtcscope is running at (\S+)/ });
  return { ...p, url: p.ready };
}
