import { checker } from '@rtcscope/protocol';
import { type Static, Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.js';

/**
 * The channel on which operator commands tell every node that a project changed (its ingest limit) or
 * is gone, so that no node waits out its key cache. PostgreSQL delivers a notice when the transaction
 * that sent it commits, and not at all if it rolls back.
 */
export const PROJECT_CHANNEL = 'rtcscope_project';

/** A project id as PostgreSQL writes a uuid. */
export const PROJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ProjectNotice = Type.Object(
  {
    projectId: Type.String({ pattern: PROJECT_ID.source }),
    deleted: Type.Boolean(),
    /** The node that applied the change before announcing it, and skips its own notice; none from operator commands. */
    origin: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type ProjectNotice = Static<typeof ProjectNotice>;
export type ProjectChange = Omit<ProjectNotice, 'origin'>;
const check = checker(ProjectNotice);

export async function announceProjectChange(db: Db, change: ProjectChange, origin?: string): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${PROJECT_CHANNEL}, ${JSON.stringify({ ...change, origin })})`;
}

/** The notice's change and origin, or null for one that is not ours (anyone with the database can send one). */
export function parseProjectChange(payload: string): ProjectNotice | null {
  try {
    const checked = check(JSON.parse(payload));
    return checked.ok ? checked.value : null;
  } catch {
    return null;
  }
}
