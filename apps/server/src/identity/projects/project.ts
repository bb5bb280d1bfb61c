import type { ProjectInfo } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';
import { newKey } from '../keys/keys.js';

const SELECTED = { id: true, name: true, ingestKey: true, retentionDays: true, ingestLimit: true } as const;

/** A project as the API shows it, with the ingest limit that applies to it (its own, else the deployment's). */
function projectInfo(
  p: { id: string; name: string; ingestKey: string; retentionDays: number; ingestLimit: number | null },
  deploymentLimit: number | null,
): ProjectInfo {
  return {
    id: p.id,
    name: p.name,
    ingestKey: p.ingestKey,
    retentionDays: p.retentionDays as ProjectInfo['retentionDays'],
    ingestLimit: p.ingestLimit ?? deploymentLimit,
  };
}

export async function loadProject(db: Db, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  return projectInfo(await db.project.findUniqueOrThrow({ where: { id: projectId }, select: SELECTED }), deploymentLimit);
}

/** How long raw samples are kept: streams that start from now on follow it. */
export async function setRetention(
  db: Db,
  projectId: string,
  retentionDays: ProjectInfo['retentionDays'],
  deploymentLimit: number | null,
): Promise<ProjectInfo> {
  return projectInfo(await db.project.update({ where: { id: projectId }, data: { retentionDays }, select: SELECTED }), deploymentLimit);
}

/** A new publishable ingest key in place of the old one (announcing the change is the caller's). */
export async function replaceIngestKey(db: Db, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  return projectInfo(
    await db.project.update({ where: { id: projectId }, data: { ingestKey: newKey('ik') }, select: SELECTED }),
    deploymentLimit,
  );
}
