import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServerProcess } from '@rtcscope/server/testing';

/** The server a bench's lab calls report to: its own data folder and embedded PostgreSQL, its local project's keys, its API. */
export interface LabServer {
  url: string;
  ingestKey: string;
  /** GET on the REST API with the local project's API key. */
  api<T>(path: string): Promise<T>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts one; a call ends 5 s after its last sample, so a bench reads its stored diagnosis soon after
 * hanging up. `env`: more of the server's settings.
 */
export async function startLabServer(name: string, env: Record<string, string> = {}): Promise<LabServer> {
  const dir = mkdtempSync(join(tmpdir(), `rtcscope-bench-${name}-`));
  const server = await startServerProcess({
    DATA_DIR: join(dir, 'data'),
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'error',
    CALL_IDLE_TIMEOUT_S: '5',
    ...env,
  });
  const keys = JSON.parse(readFileSync(join(dir, 'data/local-project.json'), 'utf8')) as { ingestKey: string; apiKey: string };
  return {
    url: server.url,
    ingestKey: keys.ingestKey,
    async api<T>(path: string): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await (await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${keys.apiKey}` } })).json()) as T;
        } catch (err) {
          // A kept-alive connection the server closed as it was reused: asked again on a new one.
          if (attempt === 3) throw err;
        }
      }
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
