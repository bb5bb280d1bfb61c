/** How much time one block of compacted samples spans (see the blocks migration and the compaction). */
export const BLOCK_SPAN = '10 minutes';
export const BLOCK_SPAN_MS = 600_000;

/** The minutes of a slice (0 to 9), as an SQL array. */
export const MINUTES = `'{${Array.from({ length: BLOCK_SPAN_MS / 60_000 }, (_, m) => m).join(',')}}'::smallint[]`;

/**
 * Sample rows are keyed by (minute within the slice, id, ts) (see the sample_minute migration): a read
 * by id names every minute, which makes it one index search per minute and id on any PostgreSQL.
 * Without it, 18 skip-scans the minutes by itself; 14 to 17 read the whole slice.
 */
export const everyMinute = (alias: string) => `${alias}.minute = ANY (${MINUTES})`;

/**
 * The time ranges whose blocks are still being written, as one value computed once per query (an
 * uncorrelated subquery). As a correlated NOT EXISTS it took a 5-minute zoom from 52 to 67 ms (p50,
 * `pnpm bench:reads`); as this, 56.
 */
const pending = (kind: 'stream' | 'connection') =>
  `(SELECT coalesce(range_agg(tstzrange(from_ts, to_ts)), '{}') FROM compaction WHERE kind = '${kind}')`;

/**
 * The samples of some streams (or connections) in a time range, whether still rows or compacted into
 * blocks, as one derived table `points` with the id column, `ts` and `columns`. Only the arrays of the
 * wanted columns are unpacked. `ids`, `from` and `to` are SQL expressions (a bigint[] and two
 * timestamptz); a subquery given them may refer to the tables before it (LATERAL).
 * Blocks of a slice still being compacted are left out (its rows still hold the same samples) unless
 * `withPending`: ingest asks whether a sample is stored anywhere, and a sample in such a block is.
 */
export function pointsSql(
  kind: 'stream' | 'connection',
  columns: readonly string[],
  ids: string,
  from: string,
  to: string,
  withPending = false,
): string {
  const id = `${kind}_id`;
  const at = `b.t0 + u.o * interval '1 millisecond'`;
  const list = (prefix: string) => columns.map((c) => `, ${prefix}${c}`).join('');
  return `(SELECT r.${id}, r.ts${list('r.')}
      FROM ${kind}_sample r
      WHERE ${everyMinute('r')} AND r.${id} = ANY (${ids}) AND r.ts >= ${from} AND r.ts <= ${to}
    UNION ALL
    SELECT b.${id}, ${at}${list('u.')}
      FROM ${kind}_block b, unnest(b.offset_ms${list('b.')}) AS u(o${list('')})
      WHERE b.${id} = ANY (${ids}) AND b.t0 <= ${to} AND b.t0 > ${from} - interval '${BLOCK_SPAN}' AND ${at} BETWEEN ${from} AND ${to}
        ${withPending ? '' : `AND NOT b.t0 <@ ${pending(kind)}`}
  ) AS points`;
}
