import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import type { AgentCapabilities } from '@rtcscope/experiments';
import { CHROMIUM } from '../browser/chromium.js';
import { cpuLimitUsable } from '../browser/cpu-limit.js';
import { FIREFOX } from '../browser/firefox.js';
import { JANUS } from '../sfu/janus-server.js';
import { LIVEKIT } from '../sfu/livekit-server.js';
import { type Backend, BACKENDS, chooseBackend, probeHost } from '../emulator/probe.js';

/**
 * Calls at 640x360 one core sustains with received FPS at 90 % of the source or better: `pnpm
 * bench:lab` measured 4 on the 2-core reference machine. Override with --max-calls after measuring yours.
 */
const CALLS_PER_CORE = 2;

/** What this host offers the lab: emulation backends, the one runs use, and how many calls it carries. */
export async function describeHost(maxCalls: number | undefined): Promise<AgentCapabilities & { backend: Backend }> {
  const caps = await probeHost();
  const choice = chooseBackend(caps);
  const version = (path: string) =>
    promisify(execFile)(path, ['--version'], { timeout: 10_000 })
      .then((r) => r.stdout.trim().split('\n')[0]!)
      .catch((err: Error) => `not runnable: ${err.message.split('\n')[0]}`);
  const [chromium, firefox, sfu, livekit] = await Promise.all([version(CHROMIUM), version(FIREFOX), version(JANUS), version(LIVEKIT)]);
  return {
    backends: choice.backend === BACKENDS.kernel ? [BACKENDS.kernel, BACKENDS.relay] : [BACKENDS.relay],
    backend: choice.backend,
    maxConcurrentCalls: maxCalls ?? Math.max(1, availableParallelism() * CALLS_PER_CORE),
    cores: availableParallelism(),
    chromium,
    firefox,
    sfu,
    livekit,
    cpuLimit: cpuLimitUsable().why,
  };
}
