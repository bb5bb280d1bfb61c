// Import figures: a large generated recording of each format uploaded to a server process, as the
// dashboard sends one (the file as the body): MB/s and samples/s end to end (upload, streaming parse,
// the SDK's normalize(), validation, ingest writes, the diagnosis of the call), the server's CPU and
// its peak resident memory, to show a file near the 200 MB limit is read as a stream, not held whole.
// Run: pnpm bench:import   (BENCH_IMPORT_MB=190 to change the files' size; BENCH_SERVER_HEAP_MB=512 caps the
// server's JavaScript heap, to show what an import needs live rather than what the collector let grow)
import { createReadStream, mkdtempSync, chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, openDatabase, startEmbeddedPostgres } from '@rtcscope/server';
import { peakRssMb } from './proc.js';
import { freePort, rtcstatsDump, type SyntheticRecording, webrtcInternalsDump } from '@rtcscope/server/testing';
import { startBenchServer } from './bench-server.js';

const TARGET_MB = Number(process.env.BENCH_IMPORT_MB ?? 190);
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-import-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(pg.url);
const project = await createProject(db, 'import');
const HEAP_MB = process.env.BENCH_SERVER_HEAP_MB;
const server = await startBenchServer(pg.url, join(dir, 'data'), HEAP_MB ? { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } : {});
if (HEAP_MB) console.log(`server heap capped at ${HEAP_MB} MB`);
const pid = server.process.pid!;

/** The server's CPU seconds so far (user + system) and its peak resident memory (MB), from /proc. */
function serverUsage(): { cpuS: number; peakMb: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { cpuS: ticks / 100, peakMb: peakRssMb(pid) };
}

/** A file of about the target size: as many connections as it takes, each recorded for `seconds`. */
function generate(name: string, make: (r: SyntheticRecording) => string, seconds: number): { path: string; samples: number } {
  const startMs = Date.now() - 2 * 3_600_000;
  const one = make({ startMs, seconds, connections: 1, sendKbps: 800 }).length;
  const connections = Math.max(1, Math.round((TARGET_MB * 1e6) / one));
  const path = join(dir, name);
  writeFileSync(path, make({ startMs, seconds, connections, sendKbps: 800 }));
  // Per connection and report: one connection row and two stream rows (video out, audio in).
  return { path, samples: connections * (seconds + 1) * 3 };
}

function upload(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/v1/recordings?name=${encodeURIComponent(path)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${project.apiKey}`,
        'content-type': 'application/octet-stream',
        'content-length': String(statSync(path).size),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

try {
  // webrtc-internals keeps the last 1000 values of each series: a 1000-s recording per connection.
  const files = [
    { format: 'webrtc-internals', ...generate('webrtc_internals_dump.txt', webrtcInternalsDump, 999) },
    { format: 'rtcstats (jitsi, delta-compressed)', ...generate('rtcstats.jsonl', (r) => rtcstatsDump(r, 'jitsi'), 999) },
    { format: 'rtcstats (format 3, full reports)', ...generate('rtcstats-v3.jsonl', (r) => rtcstatsDump(r, 'format3'), 999) },
  ];
  for (const f of files) {
    const mb = statSync(f.path).size / 1e6;
    const before = serverUsage();
    const t0 = performance.now();
    const res = await upload(f.path);
    const s = (performance.now() - t0) / 1000;
    const after = serverUsage();
    if (res.status !== 201) throw new Error(`${f.format}: ${res.status} ${res.body}`);
    const { samples } = JSON.parse(res.body) as { samples: number };
    if (samples !== f.samples) throw new Error(`${f.format}: ${samples} samples imported, ${f.samples} generated`);
    console.log(
      `import ${f.format}: ${mb.toFixed(0)} MB, ${samples} samples in ${s.toFixed(1)} s = ${(mb / s).toFixed(1)} MB/s, ${Math.round(samples / s)} samples/s; ` +
        `server CPU ${(after.cpuS - before.cpuS).toFixed(1)} s, server peak RSS ${after.peakMb.toFixed(0)} MB`,
    );
  }
} finally {
  await server.stop();
  await db.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
