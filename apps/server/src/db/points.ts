/** How much time one block of compacted samples spans (see the blocks migration and the compaction). */
export const BLOCK_SPAN = '10 minutes';
export const BLOCK_SPAN_MS = 600_000;

/**
 * The samples of some streams (or connections) in a time range, whether still rows or compacted into
 * blocks, as one derived table `points` with the id column, `ts` and `columns`. Only the arrays of the
 * wanted columns are unpacked. `ids`, `from` and `to` are SQL expressions (a bigint[] and two
 * timestamptz); a subquery given them may refer to the tables before it (LATERAL).
 */
export function pointsSql(kind: 'stream' | 'connection', columns: readonly string[], ids: string, from: string, to: string): string {
  const id = `${kind}_id`;
  const at = `b.t0 + u.o * interval '1 millisecond'`;
  const list = (prefix: string) => columns.map((c) => `, ${prefix}${c}`).join('');
  return `(SELECT r.${id}, r.ts${list('r.')}
      FROM ${kind}_sample r
      WHERE r.${id} = ANY (${ids}) AND r.ts >= ${from} AND r.ts <= ${to}
    UNION ALL
    SELECT b.${id}, ${at}${list('u.')}
      FROM ${kind}_block b, unnest(b.offset_ms${list('b.')}) AS u(o${list('')})
      WHERE b.${id} = ANY (${ids}) AND b.t0 <= ${to} AND b.t0 > ${from} - interval '${BLOCK_SPAN}' AND ${at} BETWEEN ${from} AND ${to}
  ) AS points`;
}
