import type pg from 'pg';
import { announceProjectChange } from './changes.js';
import { inTransaction } from '../../db/client.js';
import type { SampleOwners } from '../../samples/purge.js';

export interface DeletedProject extends SampleOwners {
  name: string;
  calls: number;
}

/** PostgreSQL broke a deadlock by ending this transaction (ingest was writing the project meanwhile): it goes again. */
const DEADLOCK = '40P01';

/**
 * Deletes a project in one transaction, only if `name` is its name (the operator's confirmation): its
 * keys, calls, participants, events and lab data (through the foreign keys). Returns the ids its
 * samples are stored under, for `purgeSamples`; `record` writes the audit log's entry in the same
 * transaction. Every node hears of it when it commits, forgets the project's keys and ends its dashboards' and agents' sockets; SDKs are refused at their next batch.
 * Null: no such project by that name, and nothing was changed.
 */
export async function deleteProject(
  pool: pg.Pool,
  projectId: string,
  name: string,
  record: (client: pg.ClientBase, deleted: { organizationId: string; calls: number }) => Promise<void>,
): Promise<DeletedProject | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ name: string; organizationId: string }>(
          'SELECT name, organization_id AS "organizationId" FROM project WHERE id = $1 AND name = $2 FOR UPDATE',
          [projectId, name],
        );
        if (!rows[0]) return null;
        const owners = await ownersOf(client, projectId);
        const { rowCount: calls } = await client.query('DELETE FROM call WHERE project_id = $1', [projectId]);
        await client.query('DELETE FROM project WHERE id = $1', [projectId]);
        await record(client, { organizationId: rows[0].organizationId, calls: calls ?? 0 });
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
    (
      await client.query<{ id: number }>(`SELECT id FROM ${table} WHERE project_id = $1 ORDER BY id${lock ? ' FOR UPDATE' : ''}`, [
        projectId,
      ])
    ).rows.map((r) => r.id);
  await ids('call', true);
  await ids('participant', true);
  const connections = await ids('connection', true);
  return { streams: await ids('stream', false), connections };
}
