import type pg from 'pg';
import { announceProjectChange } from '../auth/project-changes.js';
import { inTransaction } from '../db/client.js';
import { everyMinute } from '../db/points.js';

/** The ids a project's samples are stored under, in every form. */
export interface SampleOwners {
  streams: number[];
  connections: number[];
}

export interface DeletedProject extends SampleOwners {
  name: string;
  calls: number;
}

/** Ids per statement: each statement stays short, so nothing waits long on the locks it holds. */
const CHUNK = 1000;
/** PostgreSQL broke a deadlock by ending this transaction (ingest was writing the project meanwhile): it goes again. */
const DEADLOCK = '40P01';

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

/**
 * Deletes a project in one transaction, only if `name` is its name (the operator's confirmation): its
 * keys, calls, participants, events and lab data (through the foreign keys). Returns the ids its
 * samples are stored under, for `purgeSamples`. Every node hears of it when it commits, forgets the
 * project's keys and ends its dashboards' and agents' sockets; SDKs are refused at their next batch.
 * Null: no such project by that name, and nothing was changed.
 */
export async function deleteProject(pool: pg.Pool, projectId: string, name: string): Promise<DeletedProject | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ name: string }>('SELECT name FROM project WHERE id = $1 AND name = $2 FOR UPDATE', [projectId, name]);
        if (!rows[0]) return null;
        const owners = await ownersOf(client, projectId);
        const { rowCount: calls } = await client.query('DELETE FROM call WHERE project_id = $1', [projectId]);
        await client.query('DELETE FROM project WHERE id = $1', [projectId]);
        await announceProjectChange(client, { projectId, deleted: true });
        return { name: rows[0].name, calls: calls ?? 0, ...owners };
      });
    } catch (err) {
      if ((err as { code?: string }).code !== DEADLOCK || attempt === 3) throw err;
    }
  }
}

/**
 * The project's streams and connections, with every row new ones would hang from locked (the project
 * row is already): ingest cannot add one until the deletion is over, when the project is gone.
 */
async function ownersOf(client: pg.ClientBase, projectId: string): Promise<SampleOwners> {
  const ids = async (table: 'call' | 'participant' | 'connection' | 'stream', lock: boolean) =>
    (await client.query<{ id: number }>(`SELECT id FROM ${table} WHERE project_id = $1 ORDER BY id${lock ? ' FOR UPDATE' : ''}`, [projectId])).rows.map((r) => r.id);
  await ids('call', true);
  await ids('participant', true);
  const connections = await ids('connection', true);
  return { streams: await ids('stream', false), connections };
}
