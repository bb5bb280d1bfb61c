import type pg from 'pg';
import { everyMinute } from './points.js';

/** The ids a project's samples are stored under, in every form. */
export interface SampleOwners {
  streams: number[];
  connections: number[];
}

/** Ids per statement: each statement stays short, so nothing waits long on the locks it holds. */
const CHUNK = 1000;

/**
 * Samples carry their stream's or connection's id, not the project's, and no foreign key (it would
 * cost ingest a lookup per row): they are deleted by those ids. Raw rows name every minute of a slice
 * so that each id is one index search per minute, not a scan of the slice.
 */
const SAMPLE_DELETES = (['stream', 'connection'] as const).flatMap((kind) =>
  [
    `DELETE FROM ${kind}_sample s WHERE ${everyMinute('s')} AND s.${kind}_id = ANY ($1::bigint[])`,
    `DELETE FROM ${kind}_block WHERE ${kind}_id = ANY ($1::bigint[])`,
    `DELETE FROM ${kind}_rollup WHERE ${kind}_id = ANY ($1::bigint[])`,
  ].map((sql) => ({ sql, ids: (o: SampleOwners) => (kind === 'stream' ? o.streams : o.connections) })),
);

/**
 * Deletes the samples of these streams and connections, a chunk of ids per statement; returns how many
 * rows (blocks hold several samples each) went. Not in one transaction: a long one would hold up
 * compaction dropping a slice, and ingest of every project queued behind that. Rows it has not reached
 * yet belong to no project any more, so no read finds them meanwhile.
 */
export async function purgeSamples(pool: pg.Pool, owners: SampleOwners): Promise<number> {
  let rows = 0;
  for (const { sql, ids } of SAMPLE_DELETES) {
    const all = ids(owners);
    for (let k = 0; k < all.length; k += CHUNK) rows += (await pool.query(sql, [all.slice(k, k + CHUNK)])).rowCount ?? 0;
  }
  return rows;
}
