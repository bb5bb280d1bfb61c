import { STREAM_FIELDS, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import type pg from 'pg';
import { pointsSql } from '../samples/points.js';

/** The fields participants' summaries average over a call (the migration of stream_summary_fold has a sum and a count of each). */
const FIELDS: readonly StreamFieldName[] = ['kbps', 'rttMs', 'lossPct', 'jitterMs', 'fps', 'height', 'freezes'];
const COLUMNS = FIELDS.map((name) => STREAM_FIELDS[streamFieldIndex(name)]!.column);

const each = (f: (c: string) => string) => COLUMNS.map(f).join(', ');

/**
 * Each stream's sum and count of each field, for a set of calls: from the stream's fold plus the samples
 * since it (`$2` false: live calls, and the new totals are kept), or from every sample of the call
 * (`$2` true: ended calls, exact whatever arrived late; their folds are dropped). Samples up to `$3`'s time, rows
 * or blocks alike (points.ts). One statement for the whole set.
 */
const FOLD_SQL = `
WITH n AS (SELECT coalesce(to_timestamp($3::float8 / 1000.0), now()) AS t),
st AS (
  SELECT s.id AS stream_id, s.project_id, pa.call_id, k.started_at, CASE WHEN $2 THEN NULL ELSE f.through END AS through,
    ${each((c) => `CASE WHEN $2 THEN 0 ELSE coalesce(f.${c}_sum, 0) END AS ${c}_prior_sum, CASE WHEN $2 THEN 0 ELSE coalesce(f.${c}_n, 0) END AS ${c}_prior_n`)}
  FROM call k JOIN participant pa ON pa.call_id = k.id JOIN connection cn ON cn.participant_id = pa.id JOIN stream s ON s.connection_id = cn.id
  LEFT JOIN stream_summary_fold f ON f.stream_id = s.id
  WHERE k.id = ANY ($1::bigint[])
), added AS (
  SELECT st.stream_id, max(points.ts) AS through, ${each((c) => `sum(points.${c}::float8) AS ${c}_sum, count(points.${c})::int AS ${c}_n`)}
  FROM st, n, LATERAL ${pointsSql('stream', COLUMNS, 'ARRAY[st.stream_id]', "coalesce(st.through + interval '1 millisecond', st.started_at)", 'n.t')}
  GROUP BY st.stream_id
), total AS (
  SELECT st.stream_id, st.project_id, st.call_id, coalesce(a.through, st.through) AS through,
    ${each((c) => `st.${c}_prior_sum + coalesce(a.${c}_sum, 0) AS ${c}_sum, st.${c}_prior_n + coalesce(a.${c}_n, 0) AS ${c}_n`)}
  FROM st LEFT JOIN added a ON a.stream_id = st.stream_id
), kept AS (
  INSERT INTO stream_summary_fold (stream_id, project_id, call_id, through, ${each((c) => `${c}_sum, ${c}_n`)})
  SELECT stream_id, project_id, call_id, through, ${each((c) => `${c}_sum, ${c}_n`)} FROM total WHERE NOT $2 AND through IS NOT NULL
  ON CONFLICT (stream_id) DO UPDATE SET through = EXCLUDED.through, ${each((c) => `${c}_sum = EXCLUDED.${c}_sum, ${c}_n = EXCLUDED.${c}_n`)}
), dropped AS (
  DELETE FROM stream_summary_fold WHERE $2 AND call_id = ANY ($1::bigint[])
)
SELECT stream_id::text AS id, ${each((c) => `${c}_sum, ${c}_n`)} FROM total`;

/** Each stream's mean of each field, by stream id, at the field's position in a sample's values (`streamFieldIndex`). */
export type StreamMeans = Map<number, (number | null)[]>;

/**
 * The means of the calls' streams over the calls so far: live calls' (`whole` false) from their folds,
 * advanced by the samples since, ended calls' (`whole` true) from all their samples, their folds
 * dropped (on the caller's transaction, so a summary that is not written keeps them). `now` is the
 * database's clock unless a test sets it.
 */
export async function streamMeans(
  db: pg.Pool | pg.PoolClient,
  callDbIds: readonly string[],
  whole: boolean,
  now?: number,
): Promise<StreamMeans> {
  if (!callDbIds.length) return new Map();
  const { rows } = await db.query<{ id: string } & Record<string, number>>(FOLD_SQL, [callDbIds, whole, now ?? null]);
  return new Map(
    rows.map((r) => {
      const means: (number | null)[] = [];
      FIELDS.forEach((name, k) => {
        const n = r[`${COLUMNS[k]}_n`]!;
        means[streamFieldIndex(name)] = n ? r[`${COLUMNS[k]}_sum`]! / n : null;
      });
      return [Number(r.id), means];
    }),
  );
}
