// Read figures: with 10 million stream-samples stored (seeded by a generator, not by hand), the data
// behind a call page for a 1-hour, 4-participant call (detail, series of every stream at the
// dashboard's resolution, events — requested together, as the page does; an ended call's long range
// comes from its 10-second rollups) and the calls list with
// its aggregates for a 24-hour window, each timed 40 times through a server process: p50 / p95.
// The samples are stored as the server keeps them: every 10-minute slice that ended 10 minutes ago
// compacted into blocks, the rest rows. So one call page is of a call that ended an hour ago (all
// blocks), one of a call ending now (blocks, and rows for its last 10–20 minutes).
// Then the fleet: 100,000 calls over the last 30 days (2–4 participants each, their summaries and the
// days' rollups as the server writes them), each insights query over the 30 days with one breakdown (read
// from the rollups), the last 24 hours (from the summaries), and drill-downs.
// Run: pnpm bench:reads   (BENCH_SAMPLES=10000000, BENCH_FLEET_CALLS=100000 to change the volumes)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compactSamples,
  createProject,
  openDatabase,
  Partitions,
  rollUpDay,
  rollUpEndedCalls,
  startEmbeddedPostgres,
} from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import { startBenchServer } from './bench-server.js';
import { seedFleet } from './fleet.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10_000_000);
const FLEET_CALLS = Number(process.env.BENCH_FLEET_CALLS ?? 100_000);
const REPEAT = 40;
/** What the dashboard's call page asks for. */
const MAX_POINTS = Number(process.env.BENCH_MAX_POINTS ?? 1200);
/** The fields the call page draws (apps/web/src/lib/useCallData.ts). */
const FIELDS = 'kbps,rttMs,fps,height,lossPct,jitterMs';
const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-reads-'));
chmodSync(dir, 0o755);
const pg = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(pg.url);
const project = await createProject(db, 'reads');
const now = Date.now();
const DAY = 86_400_000;
await Partitions.of(db.pool).ensureFor(Array.from({ length: DAY / 60_000 + 1 }, (_, m) => now - DAY + m * 60_000));

/**
 * `calls` calls of `participants` × `connections` × 4 streams (audio/video in/out), each `seconds`
 * long, starting evenly over the last 24 hours, with a 1 Hz sample per stream.
 */
async function seed(
  prefix: string,
  calls: number,
  participants: number,
  connections: number,
  seconds: number,
  firstStart: number,
  spacingMs: number,
) {
  await db.pool.query(
    `WITH c AS (
       INSERT INTO call (project_id, external_id, started_at, last_seen_at, ended_at, rtt_sum, rtt_count, loss_sum, loss_count, fps_sum, fps_count)
       SELECT $1, $2 || k, to_timestamp(($3::bigint + k * $4::bigint) / 1000.0), to_timestamp(($3::bigint + k * $4::bigint + $5::int * 1000) / 1000.0),
              to_timestamp(($3::bigint + k * $4::bigint + $5::int * 1000) / 1000.0), 40 * $5::int, $5::int, 0.5 * $5::int, $5::int, 29 * $5::int, $5::int
       FROM generate_series(0, $6::int - 1) k RETURNING id, started_at, last_seen_at),
     p AS (
       INSERT INTO participant (project_id, call_id, external_id, joined_at, last_seen_at)
       SELECT $1, c.id, 'p' || j, c.started_at, c.last_seen_at FROM c, generate_series(0, $7::int - 1) j RETURNING id),
     conn AS (
       INSERT INTO connection (project_id, participant_id, session, key)
       SELECT $1, p.id, 's', 'pc' || j FROM p, generate_series(0, $8::int - 1) j RETURNING id)
     INSERT INTO stream (project_id, connection_id, direction, kind, ssrc)
     SELECT $1, conn.id, (ARRAY['out','out','in','in'])[j + 1], (ARRAY['video','audio','video','audio'])[j + 1], 1000 + j
     FROM conn, generate_series(0, 3) j`,
    [project.projectId, prefix, firstStart, spacingMs, seconds, calls, participants, connections],
  );
  await db.pool.query(
    `INSERT INTO stream_sample (stream_id, ts, seq, kbps, packets, packets_lost, loss_pct, jitter_ms, rtt_ms, fps, width, height)
     SELECT s.id, ca.started_at + make_interval(secs => t), t, 800 + (t % 100), 70, 0, 0.5, 2.5, 40, 30, 640, 360
     FROM call ca JOIN participant p ON p.call_id = ca.id JOIN connection c ON c.participant_id = p.id JOIN stream s ON s.connection_id = c.id,
          generate_series(0, $3 - 1) t
     WHERE ca.project_id = $1 AND ca.external_id LIKE $2 || '%'`,
    [project.projectId, prefix, seconds],
  );
}

const t0 = performance.now();
// The calls the page opens: 1 hour, 4 participants in a mesh (3 connections each): 48 streams; one
// ended an hour ago, one ending now.
await seed('page-call-', 1, 4, 3, 3600, now - 2 * 3600_000, 0);
await seed('recent-call-', 1, 4, 3, 3600, now - 3600_000, 0);
const perCall = 2 * 1 * 4 * 1200;
const background = Math.max(0, Math.round((SAMPLES - 2 * 48 * 3600) / perCall));
// The rest: 20-minute 2-party calls spread over the day.
await seed('bg-', background, 2, 1, 1200, now - DAY + 60_000, Math.floor((DAY - 1500_000) / Math.max(1, background)));
await db.pool.query('ANALYZE');
const { rows } = await db.pool.query<{ n: number; bytes: number }>(
  `SELECT (SELECT count(*) FROM stream_sample)::float8 AS n,
          (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('stream_sample') WHERE isleaf)::float8 AS bytes`,
);
console.log(
  `seeded ${rows[0]!.n.toLocaleString('en')} stream-samples (${background + 2} calls, ${(rows[0]!.bytes / 1e9).toFixed(2)} GB with indexes) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
// What the server's sweeper does as calls end: their 10-second rollups.
const r0 = performance.now();
const rolled = await rollUpEndedCalls(db.pool, 100_000);
const rollS = (performance.now() - r0) / 1000;
console.log(`rolled up ${rolled} ended calls in ${rollS.toFixed(0)} s (${(rows[0]!.n / rollS).toFixed(0)} stream-samples/s)`);
// What the server's compaction has done by now: every slice that ended 10 minutes ago is blocks.
const c0 = performance.now();
const compacted = await compactSamples(db, { now });
const compactS = (performance.now() - c0) / 1000;
const blocks = await db.pool.query<{ bytes: number; samples: number; rows: number }>(
  `SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('stream_block') WHERE isleaf)::float8 AS bytes,
          (SELECT sum(n) FROM stream_block)::float8 AS samples, (SELECT count(*) FROM stream_sample)::float8 AS rows`,
);
const b = blocks.rows[0]!;
console.log(
  `compacted ${compacted.length} slices, ${b.samples.toLocaleString('en')} stream-samples in ${compactS.toFixed(0)} s (${(b.samples / compactS).toFixed(0)}/s): ` +
    `${(b.bytes / b.samples).toFixed(1)} bytes per stream-sample (seeded values are regular; bench:ingest has the realistic figure); ${b.rows.toLocaleString('en')} still rows`,
);
// The fleet: calls spread over 30 days, as their summaries stand once written (the summary job leaves them).
const f0 = performance.now();
await seedFleet(db.pool, project.projectId, now, FLEET_CALLS);
const summaries = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM participant_summary')).rows[0]!.n;
console.log(
  `seeded ${FLEET_CALLS.toLocaleString('en')} calls over 30 days with ${summaries.toLocaleString('en')} participants' summaries in ${((performance.now() - f0) / 1000).toFixed(0)} s`,
);
// What the summary job does as summaries are written: each day's rollup, which periods over 2 days read.
const d0 = performance.now();
const { rows: fleetDays } = await db.pool.query<{ day: string }>(
  `SELECT DISTINCT to_char((started_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day FROM participant_summary ORDER BY 1`,
);
for (const { day } of fleetDays) await rollUpDay(db.pool, project.projectId, new Date(`${day}T00:00:00Z`));
const rollups = (
  await db.pool.query<{ n: number; bytes: number }>(
    `SELECT count(*)::int AS n, pg_total_relation_size('insight_day')::float8 AS bytes FROM insight_day`,
  )
).rows[0]!;
console.log(
  `rolled up ${fleetDays.length} days in ${((performance.now() - d0) / 1000).toFixed(1)} s (${((performance.now() - d0) / fleetDays.length).toFixed(0)} ms a day): ` +
    `${rollups.n.toLocaleString('en')} rows, ${(rollups.bytes / 1e6).toFixed(1)} MB`,
);

// In service, autovacuum visits the data long before anyone reads it back; here it would start in
// the middle of the measurements, so it is done first.
await db.pool.query('VACUUM (ANALYZE)');
await db.close();

// Every request is timed, none refused: the REST rate limit is lifted.
const server = await startBenchServer(pg.url, join(dir, 'data'), { API_RATE_LIMIT: '1000000' });
const get = async (path: string) => {
  const res = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${project.apiKey}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json() as Promise<unknown>;
};
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function timed(what: string, target: number, request: () => Promise<unknown>) {
  await request();
  const ms: number[] = [];
  for (let k = 0; k < REPEAT; k++) {
    const start = performance.now();
    await request();
    ms.push(performance.now() - start);
  }
  console.log(
    `${what.padEnd(62)} p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(ms, 95).toFixed(1).padStart(6)} ms  (target p95 <= ${target} ms)`,
  );
}

const page = (call: string) =>
  Promise.all([get(call), get(`${call}/series?maxPoints=${MAX_POINTS}&fields=${FIELDS}`), get(`${call}/events`)]);
const call = '/calls/page-call-0';
await timed('call page: 1 h, 4 participants, 48 streams, ended 1 h ago', 100, () => page(call));
await timed('  of which the detail alone', 100, () => get(call));
await timed('  of which the events alone', 100, () => get(`${call}/events`));
await timed(`  of which the series alone (maxPoints ${MAX_POINTS})`, 100, () =>
  get(`${call}/series?maxPoints=${MAX_POINTS}&fields=${FIELDS}`),
);
await timed('call page: the same, ending now (last 10-20 min rows)', 100, () => page('/calls/recent-call-0'));
await timed('calls list: last 24 h with aggregates (100 newest)', 200, () => get(`/calls?from=${now - DAY}&limit=100`));
await timed('calls list: last 24 h, 500 calls', 200, () => get(`/calls?from=${now - DAY}&limit=500`));
// A user zooms into 5 minutes of a call: raw 1 Hz samples of all 48 streams.
const zoomFrom = now - 2 * 3600_000 + 1800_000;
await timed('zoom: 5 min raw of all 48 streams, from blocks', 100, () =>
  get(`${call}/series?from=${zoomFrom}&to=${zoomFrom + 300_000}&fields=${FIELDS}`),
);
await timed('zoom: the last 5 min of the call ending now, from rows', 100, () =>
  get(`/calls/recent-call-0/series?from=${now - 300_000}&to=${now}&fields=${FIELDS}`),
);

const month = `from=${now - 30 * DAY}&to=${now}`;
for (const breakdown of ['none', 'browser', 'browserVersion', 'os', 'deviceType', 'sdkVersion', 'path', 'metadata:appVersion']) {
  await timed(`insights: 30 days, ${FLEET_CALLS.toLocaleString('en')} calls, by ${breakdown}`, 300, () =>
    get(`/insights?${month}&bucket=day&breakdown=${breakdown}`),
  );
}
await timed('insights: the last 24 hours by browser, per hour', 300, () =>
  get(`/insights?from=${now - DAY}&to=${now}&bucket=hour&breakdown=browser`),
);
await timed('drill-down: the calls behind Chrome over 30 days (100 newest)', 300, () =>
  get(`/calls?${month}&breakdown=browser&segment=Chrome&limit=100`),
);
await timed('drill-down: behind Firefox and downlink-loss', 300, () =>
  get(`/calls?${month}&breakdown=browser&segment=Firefox&issue=downlink-loss&limit=100`),
);

await server.stop();
await pg.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
