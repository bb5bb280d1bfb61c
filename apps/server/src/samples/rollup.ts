import { CONNECTION_FIELDS, type FieldSpec, STREAM_FIELDS } from '@rtcscope/protocol';
import type pg from 'pg';
import { aggregate } from './aggregates.js';
import { pointsSql } from './points.js';

/** Resolution of the rollups. */
export const ROLLUP_MS = 10_000;

const rollupInsert = (table: 'stream' | 'connection', idColumn: string, specs: readonly FieldSpec[], ids: string) => {
  const columns = specs.map((s) => s.column);
  return `INSERT INTO ${table}_rollup (${idColumn}, ts, n, ${columns.join(', ')})
    SELECT ${idColumn}, date_bin('10 seconds', ts, 'epoch'), count(*), ${specs.map(aggregate).join(', ')}
    FROM span CROSS JOIN LATERAL ${pointsSql(table, columns, `ARRAY(${ids})`, 'span.from_ts', 'span.to_ts')}
    GROUP BY 1, 2
    ON CONFLICT (${idColumn}, ts) DO UPDATE SET n = EXCLUDED.n, ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
};

const ROLL_UP_CALL = `
  WITH span AS (SELECT started_at - interval '10 seconds' AS from_ts, ended_at + interval '10 seconds' AS to_ts FROM call WHERE id = $1),
       conns AS (SELECT c.id FROM connection c JOIN participant p ON p.id = c.participant_id WHERE p.call_id = $1),
       streams AS (SELECT s.id FROM stream s WHERE s.connection_id IN (SELECT id FROM conns)),
       sr AS (${rollupInsert('stream', 'stream_id', STREAM_FIELDS, 'SELECT id FROM streams')}),
       cr AS (${rollupInsert('connection', 'connection_id', CONNECTION_FIELDS, 'SELECT id FROM conns')})
  UPDATE call SET rolled_up_at = now() WHERE id = $1 AND ended_at IS NOT NULL`;

/**
 * Writes the 10-second rollups of calls that ended and have none yet. A call that gets samples again
 * loses its mark (the ingest clears it) and is rolled up again when it ends again; rows are replaced,
 * never doubled. Idempotent: every node may run it.
 */
export async function rollUpEndedCalls(pool: pg.Pool, limit = 20): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM call WHERE ended_at IS NOT NULL AND rolled_up_at IS NULL ORDER BY ended_at LIMIT $1`,
    [limit],
  );
  for (const { id } of rows) await pool.query(ROLL_UP_CALL, [id]);
  return rows.length;
}
