// Import bombs (issue 32): each file a security review made to exhaust the import, uploaded to a server
// process as the dashboard sends one, with the health check asked every 50 ms meanwhile. Prints, per
// file, what the server answered, how long it took, the server's peak resident memory above what it held
// before, its CPU, and the health check's latency (p50 / max) while the file was read.
// Run: pnpm bench:bombs
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, openDatabase, startEmbeddedPostgres } from '@rtcscope/server';
import { freePort, healthWhile, importBombs } from '@rtcscope/server/testing';
import { startBenchServer } from './bench-server.js';
import { cpuSeconds, peakRssMb, resetPeakRss, rssMb } from './proc.js';

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-bombs-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(pg.url);
const project = await createProject(db, 'bombs');
const server = await startBenchServer(pg.url, join(dir, 'data'));
const pid = server.process.pid!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

try {
  for (const bomb of importBombs()) {
    const base = rssMb(pid);
    resetPeakRss(pid);
    const cpu0 = cpuSeconds((p) => p === pid);
    const t0 = performance.now();
    const upload = fetch(`${server.url}/api/v1/recordings?name=bomb`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(bomb.file),
    }).then(async (res) => ({
      status: res.status,
      message: ((await res.json()) as { message: string }).message,
      ms: performance.now() - t0,
    }));
    const { result, latencies } = await healthWhile(server.url, upload);
    const { status, message, ms } = result;
    console.log(
      `${bomb.name} (${(bomb.file.length / 1e3).toFixed(0)} kB sent): ${status} in ${ms.toFixed(0)} ms, "${message.slice(0, 90)}"; ` +
        `server peak RSS +${(peakRssMb(pid) - base).toFixed(0)} MB (of ${peakRssMb(pid).toFixed(0)}), CPU ${(cpuSeconds((p) => p === pid) - cpu0).toFixed(2)} s; ` +
        `/healthz p50 ${percentile(latencies, 0.5).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length}`,
    );
  }
} finally {
  await server.stop();
  await db.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
