import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { supervise } from '../jobs/child-process.js';

const LAB_CLI = join(dirname(fileURLToPath(import.meta.url)), '../../../lab/src/cli.ts');

/**
 * A local install's lab agent: the lab CLI's `agent` command in a child process, so campaigns started
 * from the dashboard run on this host with no extra step. Its lines go to stderr with a prefix.
 */
export function startLocalAgent(server: string, token: string): { stop(): Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', LAB_CLI, 'agent', '--server', server, '--name', 'local agent'], {
    env: { ...process.env, RTCSCOPE_AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return supervise(child, 'lab agent', 'campaigns wait for another agent');
}
