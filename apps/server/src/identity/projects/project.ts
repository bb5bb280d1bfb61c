import type { ProjectInfo } from '@rtcscope/protocol';
import type pg from 'pg';
import { newKey } from '../keys/keys.js';

interface Row {
  id: string;
  name: string;
  ingestKey: string;
  retentionDays: number;
  ingestLimit: number | null;
}
const RETURNING = `RETURNING id, name, ingest_key AS "ingestKey", retention_days AS "retentionDays", ingest_limit AS "ingestLimit"`;

/** A project as the API shows it, with the ingest limit that applies to it (its own, else the deployment's). */
function projectInfo(p: Row, deploymentLimit: number | null): ProjectInfo {
  return {
    id: p.id,
    name: p.name,
    ingestKey: p.ingestKey,
    retentionDays: p.retentionDays as ProjectInfo['retentionDays'],
    ingestLimit: p.ingestLimit ?? deploymentLimit,
  };
}

export async function loadProject(db: pg.Pool, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  const { rows } = await db.query<Row>(
    `SELECT id, name, ingest_key AS "ingestKey", retention_days AS "retentionDays", ingest_limit AS "ingestLimit" FROM project WHERE id = $1`,
    [projectId],
  );
  return projectInfo(rows[0]!, deploymentLimit);
}

/** How long raw samples are kept: streams that start from now on follow it. */
export async function setRetention(
  client: pg.ClientBase,
  projectId: string,
  retentionDays: ProjectInfo['retentionDays'],
  deploymentLimit: number | null,
): Promise<ProjectInfo> {
  const { rows } = await client.query<Row>(`UPDATE project SET retention_days = $2 WHERE id = $1 ${RETURNING}`, [projectId, retentionDays]);
  return projectInfo(rows[0]!, deploymentLimit);
}

/** A new publishable ingest key in place of the old one (announcing the change is the caller's). */
export async function replaceIngestKey(client: pg.ClientBase, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  const { rows } = await client.query<Row>(`UPDATE project SET ingest_key = $2 WHERE id = $1 ${RETURNING}`, [projectId, newKey('ik')]);
  return projectInfo(rows[0]!, deploymentLimit);
}
