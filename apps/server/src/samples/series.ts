import type { StreamRate } from '@rtcscope/metrics';
import { CONNECTION_FIELDS, type FieldSpec, type Point, type Series, STREAM_FIELDS, streamFieldIndex } from '@rtcscope/protocol';
import type { Database } from '../db/database.js';
import { aggregate } from './aggregates.js';
import { pointsSql } from './points.js';
import { ROLLUP_MS } from './rollup.js';

/** Which samples a read is about: some streams' and connections', in a range (epoch ms). */
export interface SampleScope {
  from: number;
  to: number;
  /** The call has ended and its 10-second rollups are written. */
  rolledUp: boolean;
  streamIds: number[];
  connectionIds: number[];
}

/** From this bucket width on, an ended call's series comes from its 10-second rollups. */
const ROLLUP_FROM_BUCKET_MS = 3000;

/** The bucket that keeps a range under `maxPoints` per stream, in whole seconds; 1000 = raw samples. */
export function bucketFor(fromMs: number, toMs: number, maxPoints: number): number {
  return Math.max(1000, Math.ceil((toMs - fromMs) / maxPoints / 1000) * 1000);
}

const FROM = 'to_timestamp($2 / 1000.0)';
const TO = 'to_timestamp($3 / 1000.0)';
/** Samples of ids $1 in [$2, $3] (epoch ms), whether still rows or compacted into blocks. */
const samples = (kind: 'stream' | 'connection', specs: readonly FieldSpec[]) =>
  pointsSql(
    kind,
    specs.map((s) => s.column),
    '$1::bigint[]',
    FROM,
    TO,
  );
const rollups = (kind: 'stream' | 'connection') => `${kind}_rollup WHERE ${kind}_id = ANY($1::bigint[]) AND ts >= ${FROM} AND ts <= ${TO}`;

function seriesSql(source: string, idColumn: string, specs: readonly FieldSpec[], bucketed: boolean): string {
  const fields = specs.map((s) => (bucketed ? `${aggregate(s)} AS ${s.column}` : s.column)).join(', ');
  const time = bucketed ? 'date_bin(make_interval(secs => $4 / 1000.0), ts, to_timestamp($2 / 1000.0))' : 'ts';
  // date_part is float8 arithmetic; extract() computes in numeric, which cost over a quarter of the query.
  return `SELECT ${idColumn} AS id, round(date_part('epoch', ${time}) * 1000) AS t, ${fields}
    FROM ${source} ${bucketed ? 'GROUP BY 1, 2' : ''} ORDER BY 1, 2`;
}

type Mode = 'raw' | 'bucketed' | 'rollup' | 'rollupBucketed';
const statements = (kind: 'stream' | 'connection', specs: readonly FieldSpec[]): Record<Mode, string> => ({
  raw: seriesSql(samples(kind, specs), `${kind}_id`, specs, false),
  bucketed: seriesSql(samples(kind, specs), `${kind}_id`, specs, true),
  rollup: seriesSql(rollups(kind), `${kind}_id`, specs, false),
  rollupBucketed: seriesSql(rollups(kind), `${kind}_id`, specs, true),
});

/** Statements per requested field list, built once each (a dashboard asks for the same few). */
const streamStatements = new Map<string, Record<Mode, string>>();
function statementsFor(specs: readonly FieldSpec[]): Record<Mode, string> {
  const key = specs.map((s) => s.name).join(',');
  let found = streamStatements.get(key);
  if (!found) {
    if (streamStatements.size > 100) streamStatements.clear();
    found = statements('stream', specs);
    streamStatements.set(key, found);
  }
  return found;
}

const CONNECTION_SQL = statements('connection', CONNECTION_FIELDS);
const KBPS = [STREAM_FIELDS[streamFieldIndex('kbps')]!];

/** Rows come back as arrays (id, t, fields in order): no object per row for tens of thousands of points. */
function toPoints(rows: (number | null)[][]): Point[] {
  return rows.map((r) => ({ id: Number(r[0]), ts: Number(r[1]), v: r.slice(2) }));
}

const asArrays = (text: string, values: unknown[]) => ({ text, values, rowMode: 'array' as const });

/**
 * The series of a scope's streams (the fields of `specs`) and connections, averaged into buckets when
 * the range is long: long ranges of an ended call read its rollups, at most 10 s coarser than asked and
 * many times cheaper.
 */
export async function readSeries(
  db: Pick<Database, 'pool'>,
  scope: SampleScope,
  maxPoints: number,
  specs: readonly FieldSpec[],
): Promise<Series> {
  const wanted = bucketFor(scope.from, scope.to, maxPoints);
  const fromRollup = scope.rolledUp && wanted >= ROLLUP_FROM_BUCKET_MS;
  const bucketMs = fromRollup ? Math.ceil(wanted / ROLLUP_MS) * ROLLUP_MS : wanted;
  const mode: Mode = fromRollup ? (bucketMs > ROLLUP_MS ? 'rollupBucketed' : 'rollup') : bucketMs > 1000 ? 'bucketed' : 'raw';
  const params = (ids: number[]) =>
    mode === 'raw' || mode === 'rollup' ? [ids, scope.from, scope.to] : [ids, scope.from, scope.to, bucketMs];
  const [streams, connections] = await Promise.all([
    db.pool.query<(number | null)[]>(asArrays(statementsFor(specs)[mode], params(scope.streamIds))),
    db.pool.query<(number | null)[]>(asArrays(CONNECTION_SQL[mode], params(scope.connectionIds))),
  ]);
  return {
    fields: specs.map((s) => s.name),
    connectionFields: CONNECTION_FIELDS.map((s) => s.name),
    from: scope.from,
    to: scope.to,
    bucketMs,
    streams: toPoints(streams.rows),
    connections: toPoints(connections.rows),
  };
}

/**
 * Each stream's mean rate (kbit/s) per interval of `bucketMs` from the range's start, from its samples
 * (not its rollups: the same intervals whether the call has ended or not).
 */
export async function readStreamRates(db: Database, scope: SampleScope, bucketMs: number): Promise<StreamRate[]> {
  const { rows } = await db.pool.query<(number | null)[]>(
    asArrays(statementsFor(KBPS).bucketed, [scope.streamIds, scope.from, scope.to, bucketMs]),
  );
  return rows.map((r) => ({ id: Number(r[0]), ts: Number(r[1]), kbps: r[2] ?? null }));
}
