// Server ingest figures: sustained stream-samples/s from simulated SDK clients over real socket.io
// connections, ack latency p50/p99, live latency (sample time → dashboard socket) p50/p95, server CPU
// and RSS, the server's event-loop lag and GC time (from its own /metrics), database CPU, the machine's
// CPU and I/O pressure (share of the time some task waited for a core or the disk), CPU steal (the
// share of the cores' time the hypervisor gave to others: a machine whose speed varies), what the
// database's backends wait on, bytes stored per stream-sample with indexes, and the same rows written with a
// raw COPY into the same table on the same machine: ingest / COPY is the headline. The server runs as
// its own process on a real PostgreSQL, as in production.
// Each simulated client is one participant's SDK: BENCH_CONNECTIONS peer connections (3: a 4-party
// mesh), each with audio and video in and out, one batch per second.
// Run: pnpm bench:ingest   (BENCH_STAGES=250,500,1000 BENCH_STAGE_S=15 BENCH_CONNECTIONS=1 to change it;
//      BENCH_SOAK_S=600 adds a soak at 80 % of the best stage, printing server RSS every minute
//      and compaction's backlog as /metrics shows it (BENCH_SOAK_CLIENTS=2000 sets its load instead);
//      BENCH_DIAGNOSIS=compare runs each stage also with the servers' diagnosis off and prints both;
//      BENCH_BASELINE=<commit> runs each stage also on that commit's server and compares them per stage
//      (its load speaks wire version 1, as servers before 2026-11-29 need; BENCH_BASELINE_WIRE=2 for later ones);
//      BENCH_WIRE=compare runs each stage also with the load speaking wire version 1 (lines "v1");
//      BENCH_ALERT_RULES=on gives the project a rule of every kind and prints the rounds' time per stage;
//      BENCH_CALL_SIZE=1 puts each client in a call of its own (2: two per call), as many calls as clients;
//      BENCH_SERVER_NODE_ARGS adds flags to the servers' node (e.g. --cpu-prof --cpu-prof-dir=…);
//      BENCH_NODES=2 runs two server processes sharing the live rooms through PostgreSQL, clients spread
//      over them as a load balancer would, the dashboard on the first;
//      BENCH_SEED_SLICE_STREAMS=38400 writes, between the stages and the soak, a full past 10-minute slice
//      of that many streams (and a quarter as many connections) at 1 Hz, which the server's storage job
//      compacts ~5 minutes after it started: with BENCH_STAGES=4000 BENCH_STAGE_S=20 BENCH_SOAK_S=720, a
//      full slice's compaction falls within the soak, without waiting 15 minutes for one of the run's own.
//      Seeding first left the database busy (autovacuum of 24 M new rows) in the stage that sets the
//      soak's load, which then failed the 250 ms gate)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AlertCondition, CONNECTION_FIELDS, STREAM_FIELDS } from '@rtcscope/protocol';
import { compactSamples, LIVE_EVERY_S, Partitions, startEmbeddedPostgres } from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Load, videoValues } from './ingest/generator.js';
import { checkoutBaseline } from './ingest/baseline.js';
import { compareStages, HEADER, type Measurement, percentile, perSample, row } from './ingest/report.js';
import { alertTimesBetween, DatabaseScraper, insightsBetween, ServerScraper } from './ingest/scrapers.js';
import { machineCpu, pressure } from './proc.js';

const STAGES = (process.env.BENCH_STAGES ?? '250,500,1000,1500,2000,2500,3000,3500,3750,4000,4250,4500,4750,5000').split(',').map(Number);
const STAGE_S = Number(process.env.BENCH_STAGE_S ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 3);
const NODES = Number(process.env.BENCH_NODES ?? 1);
/** Participants per call: 1 makes as many live calls as clients, for the checks that grow with calls. */
const CALL_SIZE = Number(process.env.BENCH_CALL_SIZE ?? 2);
const repo = join(import.meta.dirname, '..');
const METRICS_TOKEN = randomBytes(16).toString('hex');

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-'));
chmodSync(dir, 0o755);
const embedded = process.env.BENCH_DATABASE_URL ? null : await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const databaseUrl = process.env.BENCH_DATABASE_URL ?? embedded!.url;

/** A build and setting of the server that the stages run on. */
interface Variant {
  /** Before each of its lines. */
  label: string;
  /** The repository the server runs from. */
  root: string;
  env: Record<string, string>;
  /** The wire version the load speaks to it. */
  wire: 1 | 2;
}
const THIS: Variant = { label: '', root: repo, env: {}, wire: 2 };
// BENCH_BASELINE=<commit>: each stage runs on that commit's server and on this working tree's, one after
// the other (in turns, which goes first), on the same database, and the two are compared per stage.
const BASELINE = process.env.BENCH_BASELINE;
const baselineCommit = BASELINE ? checkoutBaseline(repo, BASELINE, join(dir, 'baseline')) : null;
// Servers before 2026-11-29 speak wire version 1 only (BENCH_BASELINE_WIRE=2 for a later baseline).
const BASE: Variant = { label: 'base ', root: join(dir, 'baseline'), env: {}, wire: process.env.BENCH_BASELINE_WIRE === '2' ? 2 : 1 };
// BENCH_DIAGNOSIS=compare: likewise with this tree's server with its diagnosis off.
const OFF: Variant = { label: 'off ', root: repo, env: { DIAGNOSIS: 'off' }, wire: 2 };
// BENCH_WIRE=compare: likewise with the load speaking wire version 1 to this tree's server.
const V1: Variant = { label: 'v1 ', root: repo, env: {}, wire: 1 };
const variants = [
  ...(baselineCommit ? [BASE] : []),
  THIS,
  ...(process.env.BENCH_DIAGNOSIS === 'compare' ? [OFF] : []),
  ...(process.env.BENCH_WIRE === 'compare' ? [V1] : []),
];

/** One server node; the first makes the local project, the others find it in the shared data folder. */
async function startServer(port?: number, env: Record<string, string> = {}, root = repo) {
  port ??= await freePort();
  // As scripts/start.sh runs it; BENCH_SERVER_NODE_ARGS adds flags to try.
  const nodeArgs = ['--max-semi-space-size=64', ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ') ?? [])];
  const server = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: join(dir, 'data'),
      PORT: String(port),
      LOG_LEVEL: 'error',
      LIVE_ADAPTER: NODES > 1 ? 'postgres' : 'none',
      METRICS_TOKEN,
      // One project carries the whole load: its limits are far above what one node takes, so the
      // limiters' cost is in the figures and they never refuse.
      PROJECT_INGEST_LIMIT: '10000000',
      PROJECT_LIVE_CALLS: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => server.stdout!.on('data', (d: Buffer) => d.toString().includes('rtcscope is running') && resolve()));
  return { process: server, url: `http://127.0.0.1:${port}` };
}
let running = variants[0]!;
const servers = [await startServer(undefined, running.env, running.root)];
for (let k = 1; k < NODES; k++) servers.push(await startServer(undefined, running.env, running.root));
const keys = JSON.parse(readFileSync(join(dir, 'data/local-project.json'), 'utf8')) as { ingestKey: string; apiKey: string };
const serverStats = new ServerScraper(
  servers.map((s) => ({ url: s.url, pid: s.process.pid! })),
  METRICS_TOKEN,
);
const dbStats = await DatabaseScraper.open(databaseUrl);
const load = new Load({
  servers: servers.map((s) => s.url),
  ingestKey: keys.ingestKey,
  apiKey: keys.apiKey,
  connections: CONNECTIONS,
  callSize: CALL_SIZE,
});
load.wire = running.wire;

// BENCH_ALERT_RULES=on: the project gets a rule of every kind, so every round reads every live call as
// a project with rules has it read; each stage prints the rounds' time and each kind's.
const ALERT_RULES: AlertCondition[] = [
  { kind: 'call-issue', issueType: 'downlink-loss' },
  { kind: 'call-score', below: 2.5, forS: 30 },
  { kind: 'call-verdict', atLeast: 'poor' },
  { kind: 'never-connected', afterS: 30 },
  { kind: 'fleet-issue-share', issueType: 'downlink-loss', abovePct: 50, minCalls: 10 },
  { kind: 'fleet-setup-failures', abovePct: 50, minParticipants: 10 },
  { kind: 'precall-failing-share', abovePct: 50, minTests: 1 },
];
if (process.env.BENCH_ALERT_RULES === 'on') {
  for (const condition of ALERT_RULES) {
    const res = await fetch(`${servers[0]!.url}/api/v1/alerts/rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${condition.kind}`, enabled: true, condition }),
    });
    if (res.status !== 201) throw new Error(`alert rule ${condition.kind}: ${res.status} ${await res.text()}`);
  }
  console.log(`alert rules: one of each of ${ALERT_RULES.length} kinds on the project, evaluated every 2 s`);
}
await load.watch(20);

const SEED_STREAMS = Number(process.env.BENCH_SEED_SLICE_STREAMS ?? 0);
async function seedPastSlice(): Promise<void> {
  // After the servers' first storage run (at their start), which would take the slice while it is being
  // written: the next, 5 minutes later, finds it due.
  const storageRuns = async (url: string) =>
    /rtcscope_storage_job_runs_total\{outcome="ok"\} (\d+)/.exec(await serverStats.scrape(url))?.[1];
  for (const s of servers) while (!Number(await storageRuns(s.url))) await new Promise((r) => setTimeout(r, 200));
  const seeder = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const sliceStart = Math.floor((Date.now() - 3_600_000) / 600_000) * 600_000;
  await new Partitions(seeder).ensureFor([sliceStart, sliceStart + 599_999]);
  const seedT0 = performance.now();
  const seed = async (table: string, id: string, count: number, columns: string[], values: string[]) =>
    seeder.query(`INSERT INTO ${table} (${id}, ts, seq, ${columns.join(', ')})
      SELECT 1000000000 + k, to_timestamp(${sliceStart / 1000} + t + (k % 1000) / 1000.0), t, ${values.join(', ')}
      FROM generate_series(0, 599) t, generate_series(0, ${count - 1}) k`);
  const video = videoValues(0).slice(0, 9).map(String);
  video[0] = '1400 + t % 50';
  await seed(
    'stream_sample',
    'stream_id',
    SEED_STREAMS,
    STREAM_FIELDS.slice(0, 9).map((f) => f.column),
    video,
  );
  await seed(
    'connection_sample',
    'connection_id',
    Math.ceil(SEED_STREAMS / 4),
    CONNECTION_FIELDS.map((f) => f.column),
    ['42.5', '2500', '2500', '1500', '1500'],
  );
  await seeder.end();
  console.log(
    `seeded a past slice: ${SEED_STREAMS} streams × 600 s in ${((performance.now() - seedT0) / 1000).toFixed(0)} s, due for compaction at the servers' next storage run`,
  );
}

/** Measures for `ms`: stream-samples/s, latencies, failures, server and database CPU, server RSS. */
async function measure(ms: number): Promise<Measurement> {
  load.reset();
  const [s0, d0, g0, w0, metrics0, t0] = [
    serverStats.cpu(),
    dbStats.cpu(),
    process.cpuUsage(),
    await dbStats.wal(),
    await serverStats.metrics(),
    performance.now(),
  ];
  const [cpu0, io0, m0] = [pressure('cpu'), pressure('io'), machineCpu()];
  load.measuring = true;
  const [, dbWaits] = await Promise.all([new Promise((r) => setTimeout(r, ms)), dbStats.sampleWaits(() => performance.now() - t0 >= ms)]);
  load.measuring = false;
  const [cpu1, io1, m1] = [pressure('cpu'), pressure('io'), machineCpu()];
  const seconds = (performance.now() - t0) / 1000;
  const generator = process.cpuUsage(g0);
  const w1 = await dbStats.wal();
  const metrics1 = await serverStats.metrics();
  const [l0, l1] = [metrics0.loop(), metrics1.loop()];
  const [groups0, groups1] = [metrics0.groups(), metrics1.groups()];
  const statements = groups1.statements - groups0.statements;
  return {
    rate: load.ackedSamples / seconds,
    p50: percentile(load.ackLatencies, 50),
    p99: percentile(load.ackLatencies, 99),
    live50: percentile(load.liveLatencies, 50),
    live95: percentile(load.liveLatencies, 95),
    failed: [...load.failures.values()].reduce((a, b) => a + b, 0),
    failures: [...load.failures],
    serverCpu: (serverStats.cpu() - s0) / seconds,
    dbCpu: (dbStats.cpu() - d0) / seconds,
    generatorCpu: (generator.user + generator.system) / 1e6 / seconds,
    rssMb: serverStats.rssMb(),
    loopStallMs: l1.lagMaxS * 1000,
    gcMsPerS: ((l1.gcS - l0.gcS) * 1000) / seconds,
    majorGcMsPerS: ((l1.majorGcS - l0.majorGcS) * 1000) / seconds,
    longGcs: l1.longGcs - l0.longGcs,
    checkpoints: w1.checkpoints - w0.checkpoints,
    fullPageImages: w1.fpi - w0.fpi,
    walMbPerS: (w1.bytes - w0.bytes) / 1e6 / seconds,
    blocks: w1.blocks - w0.blocks,
    cpuPressure: (cpu1.some - cpu0.some) / seconds,
    ioPressure: (io1.some - io0.some) / seconds,
    steal: (m1.steal - m0.steal) / (m1.total - m0.total),
    dbWaits,
    alerts: alertTimesBetween(metrics0.alerts(), metrics1.alerts()),
    insights: { ...insightsBetween(metrics0.insights(), metrics1.insights()), ...(await dbStats.liveSummaries(LIVE_EVERY_S)) },
    groups: { perSecond: statements / seconds, batchesEach: (groups1.batches - groups0.batches) / statements },
  };
}

console.log(
  `rtcscope ingest benchmark: ${CONNECTIONS} connection(s) × 4 streams = ${load.streams} streams per simulated SDK client, 1 batch/s each, stages of ${STAGE_S} s, ${NODES} server process(es)`,
);
console.log(HEADER);
interface Stage {
  clients: number;
  m: Measurement;
  /** Within the gate (ack p99 <= 250 ms, nothing failed). */
  ok: boolean;
}

/** The servers run `variant`: started anew on their ports if they ran another. */
async function runVariant(variant: Variant): Promise<void> {
  if (variant === running) return;
  await load.resize(0);
  load.wire = variant.wire;
  if (variant.root === running.root && JSON.stringify(variant.env) === JSON.stringify(running.env)) {
    running = variant;
    return;
  }
  const ports = servers.map((s) => Number(new URL(s.url).port));
  await Promise.all(servers.map((s) => new Promise((r) => s.process.once('exit', r).kill('SIGTERM'))));
  for (const [k, port] of ports.entries()) servers[k] = await startServer(port, variant.env, variant.root);
  serverStats.retarget(servers.map((s) => ({ url: s.url, pid: s.process.pid! })));
  running = variant;
}

/**
 * Stages of rising load, each run on every variant in turn (which goes first alternates, so neither
 * always finds the database the busier), until ack p99 passes 250 ms or a batch fails on each: per
 * variant, every stage measured and the best sustained rate.
 */
async function ramp() {
  const results = new Map(variants.map((v) => [v, { best: 0, bestClients: 0, measured: [] as Stage[], stopped: false }]));
  for (const [k, target] of STAGES.entries()) {
    const turn = k % 2 ? [...variants].reverse() : variants;
    const order = [...turn.filter((v) => v === running), ...turn.filter((v) => v !== running)];
    for (const variant of order) {
      const r = results.get(variant)!;
      if (r.stopped) continue;
      await runVariant(variant);
      await load.resize(target);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const m = await measure((STAGE_S - 5) * 1000);
      console.log(row(`${variant.label}${target}`, m));
      const ok = m.p99 <= 250 && m.failed === 0;
      r.measured.push({ clients: target, m, ok });
      if (!ok) {
        console.log(`${variant.label}stopping: ack p99 above 250 ms or failed batches at ${target} clients`);
        r.stopped = true;
      } else if (m.rate > r.best) [r.best, r.bestClients] = [m.rate, target];
    }
    if ([...results.values()].every((r) => r.stopped)) break;
  }
  return results;
}

const ramps = await ramp();
const { best, bestClients, measured } = ramps.get(THIS)!;
const stages = measured.filter((s) => s.ok).map((s) => ({ clients: s.clients, rate: s.m.rate, live95: s.m.live95 }));
if (baselineCommit) {
  const base = ramps.get(BASE)!;
  console.log(`baseline: ${BASELINE} (${baselineCommit.slice(0, 12)}), lines "base"`);
  console.log(compareStages(base.measured, measured, base.best, best));
}
const v1 = ramps.get(V1);
if (v1) {
  console.log('wire version 1 as the baseline (lines "v1"), this tree\'s server both:');
  console.log(compareStages(v1.measured, measured, v1.best, best));
}
const off = ramps.get(OFF);
if (off) {
  console.log(
    `diagnosis: on ${best.toFixed(0)} stream-samples/s, off (lines "off") ${off.best.toFixed(0)}: on keeps ${off.best ? ((best / off.best) * 100).toFixed(0) : '–'} % of off (target >= 90 %)`,
  );
}
await runVariant(THIS);
const half = stages.reduce<(typeof stages)[number] | undefined>(
  (a, b) => (a && Math.abs(a.rate - best / 2) <= Math.abs(b.rate - best / 2) ? a : b),
  undefined,
);
if (half && Math.abs(half.rate / best - 0.5) <= 0.15) {
  console.log(
    `at about half of that (${half.rate.toFixed(0)} stream-samples/s): live latency p95 ${half.live95.toFixed(0)} ms (target <= 500 ms)`,
  );
} else if (best > 0) console.log('live latency at half load: no stage ran near half of that; add one to BENCH_STAGES');

// Soak: 80 % of the best stage (or BENCH_SOAK_CLIENTS, to compare builds at one load on a machine whose
// speed varies) for BENCH_SOAK_S seconds; server RSS should stay flat.
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 0);
const soakClients = Number(process.env.BENCH_SOAK_CLIENTS ?? Math.round(bestClients * 0.8));
if (SOAK_S > 0 && soakClients > 0) {
  if (SEED_STREAMS > 0) {
    await load.resize(0);
    await seedPastSlice();
  }
  await load.resize(soakClients);
  console.log(`soak: ${load.clients.length} clients (best stage: ${bestClients}) for ${SOAK_S} s, a line per minute`);
  // The backlog as an operator sees it (GET /metrics): a seeded slice stays in it until compacted.
  const gauge = (text: string, name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  for (let elapsed = 0; elapsed < SOAK_S; elapsed += 60) {
    console.log(row(`${elapsed / 60 + 1} min`, await measure(Math.min(60, SOAK_S - elapsed) * 1000)));
    const metrics = await serverStats.scrape(servers[0]!.url);
    console.log(
      `         compaction backlog: ${gauge(metrics, 'rtcscope_compaction_backlog_slices')} slice(s) due, the oldest for ${gauge(metrics, 'rtcscope_compaction_overdue_seconds')} s`,
    );
  }
}
console.log(`sustained with ack p99 <= 250 ms: ${best.toFixed(0)} stream-samples/s (target >= 50,000)`);

// Reconnect storm: every client drops, and 80 % of the best stage's come back within 5 s, as the
// clients of a node that died do. Measured from the first reconnect, so their first batches (which
// register the call, participant, connections and streams again) count.
if (bestClients > 0) {
  await load.resize(0);
  await new Promise((r) => setTimeout(r, 2000));
  const back = Math.round(bestClients * 0.8);
  const [m] = await Promise.all([measure(STAGE_S * 1000), load.resize(back)]);
  console.log(row('storm', m));
  console.log(`reconnect storm: ${back} clients back within 5 s, ack p99 ${m.p99.toFixed(0)} ms over the first ${STAGE_S} s`);
}

load.close();
await dbStats.close();
// The rest is the database's alone: the servers' own compaction must not take the slices from under it.
await Promise.all(servers.map((s) => new Promise((r) => s.process.once('exit', r).kill('SIGTERM'))));

const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
const size = await db.query<{ bytes: number; rows: number }>(
  `SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('stream_sample') WHERE isleaf)::float8 AS bytes,
          (SELECT count(*) FROM stream_sample)::float8 AS rows`,
);
const stored = size.rows[0]!;
console.log(
  `stored as rows: ${stored.rows} stream-samples in ${(stored.bytes / 1e6).toFixed(1)} MB with indexes = ${(stored.bytes / stored.rows).toFixed(1)} bytes per stream-sample`,
);

// What samples cost once compacted: the server's compaction rewrites each 10-minute slice of rows as
// compressed blocks 10–15 minutes after the slice ends (any compacted during the run are counted
// here too). Run here on the rows left, as if the time had passed.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
const partitions = Partitions.of(pool);
const compactT0 = performance.now();
const pass = await compactSamples({ pool, background: { pool, priority: null } }, { now: Date.now() + 86_400_000 });
const compactS = (performance.now() - compactT0) / 1000;
const passSamples = pass.filter((c) => c.partition.startsWith('stream_')).reduce((sum, c) => sum + c.rows, 0);
const blocks = await db.query<{ bytes: number; samples: number }>(
  `SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('stream_block') WHERE isleaf)::float8 AS bytes,
          (SELECT sum(n) FROM stream_block)::float8 AS samples`,
);
const compacted = blocks.rows[0]!;
console.log(
  `compacted: ${passSamples} stream-samples (and their connection samples) in ${compactS.toFixed(1)} s (${(passSamples / compactS).toFixed(0)}/s); all blocks: ${compacted.samples} stream-samples in ` +
    `${(compacted.bytes / 1e6).toFixed(1)} MB with indexes and TOAST = ${(compacted.bytes / compacted.samples).toFixed(1)} bytes per stream-sample (target <= 60)`,
);

// The database's own limit: the same kind of rows, written by one COPY into the same table (into
// new, empty slices, as the ingest finds them).
const COPY_ROWS = 1_000_000;
const streamIds = (await db.query<{ id: number }>('SELECT id FROM stream LIMIT 2000')).rows.map((r) => r.id);
const copyStart = Date.now() - 3_600_000;
const copySeconds = Math.ceil(COPY_ROWS / streamIds.length);
await partitions.ensureFor(Array.from({ length: copySeconds + 1 }, (_, s) => copyStart + s * 1000));
await pool.end();
const columns = ['stream_id', 'ts', 'seq', ...STREAM_FIELDS.map((f) => f.column)];
const [copyT0, copyCpu0] = [performance.now(), dbStats.cpu()];
await new Promise<void>((resolve, reject) => {
  const stream = db.query(copyFrom(`COPY stream_sample (${columns.join(', ')}) FROM STDIN`));
  stream.on('finish', resolve);
  stream.on('error', reject);
  let k = 0;
  const write = () => {
    let ok = true;
    while (k < COPY_ROWS && ok) {
      const lines: string[] = [];
      for (let j = 0; j < 1000 && k < COPY_ROWS; j++, k++) {
        const id = streamIds[k % streamIds.length]!;
        const second = Math.floor(k / streamIds.length);
        const ts = new Date(copyStart + second * 1000).toISOString();
        lines.push([id, ts, second, ...videoValues(second).map((v) => (v === null ? '\\N' : String(v)))].join('\t'));
      }
      ok = stream.write(`${lines.join('\n')}\n`);
    }
    if (k < COPY_ROWS) stream.once('drain', write);
    else stream.end();
  };
  write();
});
const copyRate = COPY_ROWS / ((performance.now() - copyT0) / 1000);
const copyUs = ((dbStats.cpu() - copyCpu0) / COPY_ROWS) * 1e6;
await db.end();
console.log(
  `COPY into stream_sample: ${copyRate.toFixed(0)} stream-samples/s (one connection, ${COPY_ROWS} rows), the database's CPU ${copyUs.toFixed(1)} µs per row`,
);
console.log(`ingest / COPY = ${(best / copyRate).toFixed(2)} (target >= 0.5)`);
const bestStage = measured.find((s) => s.ok && s.m.rate === best);
if (bestStage) {
  const [serverUs, dbUs] = [perSample(bestStage.m.serverCpu, best), perSample(bestStage.m.dbCpu, best)];
  console.log(
    `at the best stage (${bestStage.clients} clients): server ${serverUs.toFixed(1)} µs of CPU per stream-sample (target <= 5), ` +
      `database ${dbUs.toFixed(1)} µs = ${(dbUs / copyUs).toFixed(1)}× COPY's per row (target <= 2×; its connection samples, events and call updates included)`,
  );
}
await embedded?.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
