import { freePort, type ServerProcess, startServerProcess } from '@rtcscope/server/testing';

/**
 * The server process a bench measures, on its own PostgreSQL (`databaseUrl`) and data folder: no local
 * project (the bench makes its own), errors alone in its log. `env`: the bench's other settings.
 */
export async function startBenchServer(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    LOCAL_PROJECT: 'off',
    LOG_LEVEL: 'error',
    ...env,
  });
}
