import { announceProjectChange } from './changes.js';
import type { Database, Db } from '../../db/database.js';
import type { SampleOwners } from '../../samples/purge.js';

export interface DeletedProject extends SampleOwners {
  name: string;
  calls: number;
}

/**
 * PostgreSQL broke a deadlock by ending this transaction (ingest was writing the project meanwhile): it
 * goes again. Prisma Client names a deadlock (and a serialization failure) P2034.
 */
const DEADLOCK = 'P2034';

/**
 * Deletes a project in one transaction, only if `name` is its name (the operator's confirmation): its
 * keys, calls, participants, events and lab data (through the foreign keys). Returns the ids its
 * samples are stored under, for `purgeSamples`; `record` writes the audit log's entry in the same
 * transaction. Every node hears of it when it commits, forgets the project's keys and ends its dashboards' and agents' sockets; SDKs are refused at their next batch.
 * Null: no such project by that name, and nothing was changed.
 */
export async function deleteProject(
  db: Database,
  projectId: string,
  name: string,
  record: (tx: Db, deleted: { organizationId: string; calls: number }) => Promise<void>,
): Promise<DeletedProject | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.prisma.$transaction(async (tx) => {
        // Locks first, in the order ingest takes them (Prisma Client takes none).
        const rows = await tx.$queryRaw<{ name: string; organizationId: string }[]>`
          SELECT name, organization_id AS "organizationId" FROM project WHERE id = ${projectId}::uuid AND name = ${name} FOR UPDATE`;
        if (!rows[0]) return null;
        const owners = await ownersOf(tx, projectId);
        const { count: calls } = await tx.call.deleteMany({ where: { projectId } });
        await tx.project.delete({ where: { id: projectId } });
        await record(tx, { organizationId: rows[0].organizationId, calls });
        await announceProjectChange(tx, { projectId, deleted: true });
        return { name: rows[0].name, calls, ...owners };
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
async function ownersOf(tx: Db, projectId: string): Promise<SampleOwners> {
  const ids = async (table: 'call' | 'participant' | 'connection' | 'stream', lock: boolean) =>
    (
      await tx.$queryRawUnsafe<{ id: number }[]>(
        `SELECT id::float8 AS id FROM ${table} WHERE project_id = $1::uuid ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
        projectId,
      )
    ).map((r) => r.id);
  await ids('call', true);
  await ids('participant', true);
  const connections = await ids('connection', true);
  return { streams: await ids('stream', false), connections };
}
