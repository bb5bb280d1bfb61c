// The database's side of ingest alone: CPU per stream-sample of the group statement the server writes
// batches with (apps/server/src/samples/write.ts) at several group sizes, two lanes in flight as the
// server runs them, against COPY of the same rows into the same tables in the same run — with no server,
// sockets or load generator on the CPU beside it (bench:ingest measures them together on 2 cores, where
// each inflates the others' figures). Rows as bench:ingest's clients send them: a batch is one
// participant's second, 12 stream rows and 3 connection rows.
// Run: pnpm bench:write   (BENCH_WRITE_CLIENTS=2000 BENCH_WRITE_SECONDS=20 BENCH_WRITE_GROUPS=10,30,60,120)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meanRoles } from '@rtcscope/metrics';
import { CONNECTION_FIELDS, type DecodedRow, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import {
  type BatchWrite,
  type ClientInfo,
  createProject,
  openDatabase,
  Partitions,
  Registrar,
  startEmbeddedPostgres,
  writeGroup,
} from '@rtcscope/server';
import { freePort } from '@rtcscope/server/testing';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { videoValues } from './ingest/generator.js';
import { cpuSeconds } from './proc.js';

const CLIENTS = Number(process.env.BENCH_WRITE_CLIENTS ?? 2000);
const SECONDS = Number(process.env.BENCH_WRITE_SECONDS ?? 20);
const GROUPS = (process.env.BENCH_WRITE_GROUPS ?? '10,30,60,120').split(',').map(Number);
const CONNECTIONS = 3;
const STREAMS = 12;

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-write-'));
const embedded = await startEmbeddedPostgres(join(dir, 'db'), await freePort(), () => {});
const db = await openDatabase(embedded.url);
const { projectId } = await createProject(db, 'bench-write');
const registrar = new Registrar(db.pool);
const client: ClientInfo = { browser: null, browserVersion: null, os: null, deviceType: null, sdkVersion: null, country: null };

/** One simulated SDK: its participant, connections and streams as the registrar made them. */
const sessions = await Promise.all(
  Array.from({ length: CLIENTS }, async (_, k) => {
    const r = await registrar.participant({
      projectId,
      callId: `c${Math.floor(k / 2)}`,
      participantId: `p${k % 2}`,
      firstTs: Date.now(),
      metadata: {},
      client,
      kind: 'call',
    });
    if (!r) throw new Error(`call c${Math.floor(k / 2)} is held by a pre-call test`);
    const session = `s${k}`;
    const conns = await registrar.connectionIds({
      projectId,
      participantDbId: r.participantDbId,
      session,
      conns: Array.from({ length: CONNECTIONS }, (_, i) => ({ i, key: `pc${i}` })),
    });
    const declared = Array.from({ length: STREAMS }, (_, i) => ({
      i,
      conn: Math.floor(i / 4),
      direction: i % 4 < 2 ? ('out' as const) : ('in' as const),
      kind: i % 2 ? ('audio' as const) : ('video' as const),
      ssrc: 1000 + i,
      connectionDbId: conns.get(Math.floor(i / 4))!,
    }));
    const streams = await registrar.streamIds({ projectId, streams: declared });
    const roles = declared.map((s) => ({ id: streams.get(s.i)!, ...meanRoles(s.direction, s.kind) }));
    return { ...r, session, connectionIds: [...conns.values()], streamIds: [...streams.values()], roles };
  }),
);

/** Every client's batch of second `seq`, dated `ts`. */
function batches(seq: number, ts: number): BatchWrite[] {
  const connectionValues = [42.5, 2500, 2500, 1500, 1500, ...new Array<null>(CONNECTION_FIELDS.length - 5).fill(null)];
  return sessions.map((s) => ({
    projectId,
    callDbId: s.callDbId,
    participantDbId: s.participantDbId,
    session: s.session,
    streamRows: s.streamIds.map((id) => ({ index: id, seq, ts, values: videoValues(seq) })),
    connectionRows: s.connectionIds.map((id) => ({ index: id, seq, ts, values: connectionValues })),
    streamRoles: s.roles,
    events: [],
    left: false,
    mayRepeat: false,
    metadata: null,
  }));
}

/** Rows as COPY's text format takes them. */
function copyText(rows: readonly DecodedRow[]): string {
  const lines = rows.map((r) =>
    [r.index, new Date(r.ts).toISOString(), r.seq, ...r.values.map((v) => (v === null ? '\\N' : String(v)))].join('\t'),
  );
  return `${lines.join('\n')}\n`;
}

async function copyRows(pool: pg.Pool, table: string, id: string, specs: readonly FieldSpec[], rows: readonly DecodedRow[]) {
  const connection = await pool.connect();
  try {
    await new Promise<void>((resolve, reject) => {
      const stream = connection.query(
        copyFrom(`COPY ${table} (${[id, 'ts', 'seq', ...specs.map((f) => f.column)].join(', ')}) FROM STDIN`),
      );
      stream.on('finish', resolve);
      stream.on('error', reject);
      stream.end(copyText(rows));
    });
  } finally {
    connection.release();
  }
}

/** A way of writing a second of every client's batches. */
type Writer = (writes: BatchWrite[]) => Promise<void>;

/** The server's: groups of `size` batches, a call's batches always in the same of two lanes. */
const grouped =
  (size: number): Writer =>
  async (writes) => {
    await Promise.all(
      [0, 1].map(async (lane) => {
        const mine = writes.filter((w) => w.callDbId % 2 === lane);
        for (let g = 0; g < mine.length; g += size) await writeGroup(db.pool, mine.slice(g, g + size));
      }),
    );
  };

/** The floor: each second's rows in one COPY per table (stream samples, then connection samples). */
const copied: Writer = async (writes) => {
  const tables = [
    { table: 'stream_sample', id: 'stream_id', specs: STREAM_FIELDS, rows: writes.flatMap((w) => w.streamRows) },
    { table: 'connection_sample', id: 'connection_id', specs: CONNECTION_FIELDS, rows: writes.flatMap((w) => w.connectionRows) },
  ];
  for (const { table, id, specs, rows } of tables) await copyRows(db.pool, table, id, specs, rows);
};

// Each way writes its own seconds, inside the last 10 minutes (rows older may be compacted, and are
// written another way) and after the registrations.
const ways: [string, Writer][] = [
  ['COPY, a statement per table and second', copied],
  ...GROUPS.map((g): [string, Writer] => [`groups of ${g} batches`, grouped(g)]),
];
const start = Date.now() - 8 * 60_000;
const span = (k: number) => Array.from({ length: SECONDS }, (_, s) => start + (k * SECONDS + s) * 1000);
await Partitions.of(db.pool).ensureFor(ways.flatMap((_, k) => span(k)));
console.log(
  `rtcscope write benchmark: ${CLIENTS} clients × ${STREAMS} streams and ${CONNECTIONS} connections, ${SECONDS} s of their batches each way, the database alone`,
);
const postgresCpu = () => cpuSeconds((_pid, comm) => comm === 'postgres');
let copyUs = NaN;
for (const [k, [name, write]] of ways.entries()) {
  const [cpu0, t0] = [postgresCpu(), performance.now()];
  for (const [s, ts] of span(k).entries()) await write(batches(s, ts));
  const [cpu, seconds] = [postgresCpu() - cpu0, (performance.now() - t0) / 1000];
  const samples = SECONDS * CLIENTS * STREAMS;
  const us = (cpu / samples) * 1e6;
  if (k === 0) copyUs = us;
  console.log(
    `${name.padEnd(40)} ${(samples / seconds).toFixed(0).padStart(8)} stream-samples/s   database CPU ${us.toFixed(1).padStart(5)} µs per stream-sample (its connection samples included) = ${(us / copyUs).toFixed(2)}× COPY's`,
  );
}
await db.close();
await embedded.stop();
rmSync(dir, { recursive: true, force: true });
