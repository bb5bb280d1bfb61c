import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/database.js';
import { migrate, MIGRATIONS_DIR } from '../src/db/migrate.js';
import { Partitions, SLICE_MS, sliceName } from '../src/samples/partitions.js';
import { pointsSql } from '../src/samples/points.js';
import { compactSamples } from '../src/samples/compaction.js';
import { hashKey, KeyResolver } from '../src/identity/keys/keys.js';
import { emptyDatabase, freshDatabase } from './harness.js';

/** The column types a Prisma scalar type reads and writes (information_schema's data_type). */
const COLUMN_TYPES: Record<string, string[]> = {
  String: ['text', 'uuid', 'character varying'],
  Int: ['integer'],
  BigInt: ['bigint'],
  Float: ['double precision', 'real'],
  Boolean: ['boolean'],
  DateTime: ['timestamp with time zone'],
  Json: ['jsonb'],
  Bytes: ['bytea'],
};

/** Tables written only in SQL by their stores, in batches or by a library (the schema's header says why). */
const SQL_ONLY = [
  'alert_pending',
  'call_issue',
  'call_score_fold',
  'compaction',
  'compaction_chunk',
  'compaction_late',
  'insight_day',
  'insight_day_dirty',
  'participant_score',
  'participant_summary',
  'rtcscope_migration',
  'sign_in_limit',
  'socket_io_attachments',
  'stream_score',
  'stream_summary_fold',
];

interface RuntimeModel {
  dbName: string | null;
  fields: { name: string; kind: string; type: string; dbName?: string | null }[];
}

describe('database built from the migrations', () => {
  it('is what the Prisma schema says: every table but the SQL-only ones a model, every field a column of its type', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const models = (db.prisma as unknown as { _runtimeDataModel: { models: Record<string, RuntimeModel> } })._runtimeDataModel.models;
      const { rows: columns } = await db.pool.query<{
        table_name: string;
        column_name: string;
        data_type: string;
        udt_name: string;
        required: boolean;
      }>(
        `SELECT c.table_name, c.column_name, c.data_type, c.udt_name,
                c.is_nullable = 'NO' AND c.column_default IS NULL AND c.is_identity = 'NO' AS required
         FROM information_schema.columns c JOIN pg_class t ON t.relname = c.table_name AND t.relkind IN ('r', 'p') AND NOT t.relispartition
         WHERE c.table_schema = 'public'`,
      );
      const tables = new Map<string, typeof columns>();
      for (const c of columns) tables.set(c.table_name, [...(tables.get(c.table_name) ?? []), c]);
      const partitioned = await db.pool.query<{ relname: string }>("SELECT relname FROM pg_class WHERE relkind = 'p'");
      const modelled = new Set(Object.entries(models).map(([name, m]) => m.dbName ?? name));
      const unmodelled = [...tables.keys()].filter(
        (t) => !modelled.has(t) && !SQL_ONLY.includes(t) && !partitioned.rows.some((p) => p.relname === t),
      );
      expect(unmodelled, 'tables with neither a model nor a place in SQL_ONLY').toEqual([]);

      const problems: string[] = [];
      for (const [name, model] of Object.entries(models)) {
        const table = tables.get(model.dbName ?? name);
        if (!table) {
          problems.push(`${name}: no table ${model.dbName ?? name}`);
          continue;
        }
        const scalars = model.fields.filter((f) => f.kind === 'scalar');
        for (const f of scalars) {
          const column = table.find((c) => c.column_name === (f.dbName ?? f.name));
          if (!column) problems.push(`${name}.${f.name}: no column`);
          else {
            const type = column.data_type === 'ARRAY' ? column.udt_name.slice(1) : column.data_type;
            if (!(COLUMN_TYPES[f.type] ?? []).includes(type)) problems.push(`${name}.${f.name}: ${f.type} on a ${column.data_type} column`);
          }
        }
        for (const c of table.filter((c) => c.required)) {
          if (!scalars.some((f) => (f.dbName ?? f.name) === c.column_name))
            problems.push(`${name}: required column ${c.column_name} has no field`);
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await drop();
    }
  });

  it('stores and reads back a call with everything it holds through Prisma Client', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const { prisma } = db;
      const project = await prisma.project.create({
        data: {
          id: '00000000-0000-4000-8000-000000000001',
          name: 'p',
          ingestKey: 'ik_schema_test',
          organization: { create: { id: '00000000-0000-4000-8000-000000000002', name: 'o' } },
          apiKeys: { create: { name: 'k', hash: 'h1', scopes: ['read'], lastUsedAt: new Date() } },
        },
      });
      const call = await prisma.call.create({
        data: {
          projectId: project.id,
          externalId: 'c',
          startedAt: new Date(),
          lastSeenAt: new Date(),
          endedAt: new Date(),
          metadata: { a: 1 },
          rttSum: 1.5,
          rttCount: 1,
          lossSum: 0.5,
          lossCount: 1,
          fpsSum: 30,
          fpsCount: 1,
        },
      });
      const participant = await prisma.participant.create({
        data: {
          projectId: project.id,
          callId: call.id,
          externalId: 'p',
          joinedAt: new Date(),
          lastSeenAt: new Date(),
          leftAt: new Date(),
          metadata: {},
        },
      });
      const connection = await prisma.connection.create({
        data: {
          projectId: project.id,
          participantId: participant.id,
          session: 's',
          key: 'pc1',
          localCandidateType: 'host',
          localProtocol: 'udp',
          remoteCandidateType: 'relay',
          remoteProtocol: 'tcp',
        },
      });
      await prisma.stream.create({
        data: {
          projectId: project.id,
          connectionId: connection.id,
          direction: 'in',
          kind: 'video',
          ssrc: 4_000_000_000n,
          rid: 'h',
          trackId: 't',
          codec: 'VP8',
          implementation: 'libvpx',
        },
      });
      await prisma.callEvent.create({
        data: {
          projectId: project.id,
          callId: call.id,
          participantId: participant.id,
          connectionId: connection.id,
          session: 's',
          seq: 0,
          ts: new Date(),
          type: 'x',
          detail: 'y',
        },
      });
      const loaded = await prisma.call.findUniqueOrThrow({
        where: { id: call.id },
        include: {
          participants: { include: { connections: { include: { streams: true } }, events: true } },
          project: { include: { apiKeys: true } },
        },
      });
      expect(loaded.participants[0]?.connections[0]?.streams[0]?.ssrc).toBe(4_000_000_000n);
      expect(loaded.participants[0]?.events).toHaveLength(1);
      expect(loaded.project.apiKeys).toHaveLength(1);
      expect(loaded.metadata).toEqual({ a: 1 });
    } finally {
      await drop();
    }
  });

  it('runs each migration once and refuses one edited after it ran', async () => {
    const { db, drop } = await freshDatabase();
    try {
      expect(await migrate(db.pool)).toEqual([]);
      await db.pool.query("UPDATE rtcscope_migration SET checksum = 'edited'");
      await expect(migrate(db.pool)).rejects.toThrow(/changed after it was applied/);
    } finally {
      await drop();
    }
  });

  it('creates the partitions for a time that has none before writing to it', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const at = Date.UTC(2026, 0, 15, 12, 5);
      await expect(
        db.pool.query('INSERT INTO connection_sample (connection_id, ts, seq) VALUES (1, to_timestamp($1 / 1000.0), 0)', [at]),
      ).rejects.toThrow(/no partition/);
      await new Partitions(db.pool).ensureFor([at, at + 1000]);
      await db.pool.query('INSERT INTO connection_sample (connection_id, ts, seq) VALUES (1, to_timestamp($1 / 1000.0), 0)', [at]);
      const { rows } = await db.pool.query('SELECT tableoid::regclass::text AS part FROM connection_sample');
      expect(rows).toEqual([{ part: 'connection_sample_s202601151200' }]);
      await new Partitions(db.pool).ensureFor([at]);
      // Slices of samples are not vacuumed for their inserts; blocks and rollups are. The day's block
      // and rollup partitions are made with the slice.
      const settings = await db.pool.query<{ relname: string; reloptions: string[] | null }>(
        "SELECT relname, reloptions FROM pg_class WHERE relname IN ('stream_sample_s202601151200', 'connection_sample_s202601151200', 'stream_block_p20260115_t1', 'connection_rollup_p20260115_t3') ORDER BY 1",
      );
      expect(settings.rows).toEqual([
        { relname: 'connection_rollup_p20260115_t3', reloptions: null },
        { relname: 'connection_sample_s202601151200', reloptions: ['autovacuum_vacuum_insert_threshold=-1'] },
        { relname: 'stream_block_p20260115_t1', reloptions: null },
        { relname: 'stream_sample_s202601151200', reloptions: ['autovacuum_vacuum_insert_threshold=-1'] },
      ]);
    } finally {
      await drop();
    }
  });

  it('keeps writing into a whole day of samples made before slices existed', async () => {
    const { db, drop } = await freshDatabase();
    try {
      await db.pool.query(
        "CREATE TABLE stream_sample_p20260115 PARTITION OF stream_sample FOR VALUES FROM ('2026-01-15') TO ('2026-01-16')",
      );
      const at = Date.UTC(2026, 0, 15, 12, 5);
      await new Partitions(db.pool).ensureFor([at, Date.UTC(2026, 0, 16, 0, 5)]);
      for (const ts of [at, Date.UTC(2026, 0, 16, 0, 5)])
        await db.pool.query('INSERT INTO stream_sample (stream_id, ts, seq) VALUES (1, to_timestamp($1 / 1000.0), 0)', [ts]);
      const { rows } = await db.pool.query('SELECT tableoid::regclass::text AS part FROM stream_sample ORDER BY ts');
      expect(rows).toEqual([{ part: 'stream_sample_p20260115' }, { part: 'stream_sample_s202601160000' }]);
    } finally {
      await drop();
    }
  });

  it('gives each project of a database from before organizations one of its own, whose API keys keep working with every scope', async () => {
    const { url, pool, drop } = await databaseBefore('20261127000000_teams');
    let db: Database | undefined;
    try {
      await pool.query("INSERT INTO project (id, name, ingest_key) VALUES ('00000000-0000-4000-8000-00000000000a', 'Older', 'ik_older')");
      await pool.query("INSERT INTO api_key (project_id, name, hash) VALUES ('00000000-0000-4000-8000-00000000000a', 'default', $1)", [
        hashKey('rk_older'),
      ]);
      await pool.end();
      db = await openDatabase(url);
      const key = await new KeyResolver(db.prisma).api('rk_older');
      expect(key).toEqual({
        keyId: expect.any(Number),
        name: 'default',
        projectId: '00000000-0000-4000-8000-00000000000a',
        organizationId: expect.any(String),
        scopes: ['ingest', 'read', 'lab', 'admin'],
      });
      const { rows } = await db.pool.query(
        'SELECT o.name, (SELECT count(*)::int FROM membership m WHERE m.organization_id = o.id) AS members FROM organization o WHERE o.id = $1',
        [key!.organizationId],
      );
      expect(rows).toEqual([{ name: 'Older', members: 0 }]);
      await expect(
        db.pool.query(
          "INSERT INTO api_key (project_id, name, hash, scopes) VALUES ('00000000-0000-4000-8000-00000000000a', 'x', 'h', '{root}')",
        ),
      ).rejects.toThrow(/api_key_scopes/);
    } finally {
      await db?.close();
      await drop();
    }
  });

  it('keys the samples of an older database by minute: its rows stay readable, and a slice left mid-detach is finished and compacted', async () => {
    const { url, pool, drop } = await databaseBefore('20261122800000_sample_minute');
    let db: Database | undefined;
    try {
      const kept = Math.floor(Date.now() / SLICE_MS) * SLICE_MS - 3 * SLICE_MS;
      const leaving = kept - SLICE_MS;
      await new Partitions(pool).ensureFor([leaving, kept]);
      for (const start of [leaving, kept]) await insertMinutes(pool, 1, start);
      // A detach cancelled while it waits for a reader of the table stays pending.
      const reader = await pool.connect();
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM stream_sample');
      const detacher = await pool.connect();
      await detacher.query("SET statement_timeout = '300ms'");
      await expect(
        detacher.query(`ALTER TABLE stream_sample DETACH PARTITION ${sliceName('stream_sample', leaving)} CONCURRENTLY`),
      ).rejects.toThrow(/timeout/);
      detacher.release();
      await reader.query('COMMIT');
      reader.release();
      expect((await pool.query('SELECT 1 FROM pg_inherits WHERE inhdetachpending')).rows).toHaveLength(1);
      await pool.end();

      db = await openDatabase(url, { poolSize: 4 });
      expect((await db.pool.query('SELECT 1 FROM pg_inherits WHERE inhdetachpending')).rows).toHaveLength(0);
      expect(await kbpsOf(db, 1, kept)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const compacted = await compactSamples(db);
      expect(compacted).toEqual(
        expect.arrayContaining([
          { partition: sliceName('stream_sample', leaving), rows: 10 },
          { partition: sliceName('stream_sample', kept), rows: 10 },
        ]),
      );
      expect((await db.pool.query<{ n: number }>('SELECT sum(n)::int AS n FROM stream_block')).rows).toEqual([{ n: 20 }]);
    } finally {
      await db?.close();
      await drop();
    }
  });

  it('begins again a compaction under way before late rows were noted, without showing its blocks beside the rows', async () => {
    const { url, pool, drop } = await databaseBefore('20261122900000_compaction_late');
    let db: Database | undefined;
    try {
      const start = Math.floor(Date.now() / SLICE_MS) * SLICE_MS - 3 * SLICE_MS;
      const slice = sliceName('stream_sample', start);
      await new Partitions(pool).ensureFor([start]);
      for (const id of [1, 2]) await insertMinutes(pool, id, start);
      // As a paced pass leaves it after its first chunk: the slice named, stream 1's block written and hidden.
      await pool.query(
        "INSERT INTO compaction (partition, kind, from_ts, to_ts) VALUES ($1, 'stream', to_timestamp($2 / 1000.0), to_timestamp($3 / 1000.0))",
        [slice, start, start + SLICE_MS],
      );
      await pool.query('INSERT INTO compaction_chunk (partition, first_id, next_id, rows) VALUES ($1, 0, 2, 10)', [slice]);
      await pool.query(
        `INSERT INTO stream_block (stream_id, t0, n, offset_ms, seq, kbps)
         SELECT 1, min(ts), count(*), array_agg((extract(epoch FROM ts - t.first) * 1000)::int ORDER BY ts), array_agg(seq ORDER BY ts), array_agg(kbps ORDER BY ts)
         FROM stream_sample, (SELECT min(ts) AS first FROM stream_sample WHERE stream_id = 1) t WHERE stream_id = 1`,
      );
      await pool.end();

      db = await openDatabase(url, { poolSize: 4 });
      expect(await kbpsOf(db, 1, start)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((await db.pool.query('SELECT 1 FROM compaction')).rows).toEqual([]);
      expect(await compactSamples(db)).toContainEqual({ partition: slice, rows: 20 });
      expect((await db.pool.query<{ n: number }>('SELECT sum(n)::int AS n FROM stream_block')).rows).toEqual([{ n: 20 }]);
      expect(await kbpsOf(db, 1, start)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await db?.close();
      await drop();
    }
  });
});

/** A fresh database migrated up to, not including, `migration`: the next `openDatabase` applies the rest. */
async function databaseBefore(migration: string): Promise<{ url: string; pool: pg.Pool; drop(): Promise<void> }> {
  const { url, drop } = await emptyDatabase();
  const older = mkdtempSync(join(tmpdir(), 'rtcscope-migrations-'));
  try {
    for (const name of readdirSync(MIGRATIONS_DIR).filter((n) => n < migration)) symlinkSync(join(MIGRATIONS_DIR, name), join(older, name));
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    await migrate(pool, older);
    return { url, pool, drop };
  } finally {
    rmSync(older, { recursive: true });
  }
}

/** Ten samples of stream `id`, one in each minute of the slice starting at `start`, kbps 0 to 9. */
const insertMinutes = (pool: pg.Pool, id: number, start: number) =>
  pool.query(
    'INSERT INTO stream_sample (stream_id, ts, seq, kbps) SELECT $1, to_timestamp(($2::bigint + m * 60000 + 500) / 1000.0), m, m FROM generate_series(0, 9) m',
    [id, start],
  );

/** Stream `id`'s kbps in the slice starting at `start`, as reads see them (rows and shown blocks). */
async function kbpsOf(db: Database, id: number, start: number): Promise<number[]> {
  const { rows } = await db.pool.query<{ kbps: number }>(
    `SELECT kbps FROM ${pointsSql('stream', ['kbps'], `ARRAY[${id}::bigint]`, 'to_timestamp($1 / 1000.0)', 'to_timestamp($2 / 1000.0)')} ORDER BY ts`,
    [start, start + SLICE_MS],
  );
  return rows.map((r) => r.kbps);
}
