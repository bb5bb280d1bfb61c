import type { ProjectInfo } from '@rtcscope/protocol';
import { newKey } from '../auth/keys.js';
import type { Database } from '../db/database.js';

/** A project as the API shows it, with the ingest limit that applies to it (its own, else the deployment's). */
function projectInfo(p: { id: string; name: string; ingestKey: string; retentionDays: number; ingestLimit: number | null }, deploymentLimit: number | null): ProjectInfo {
  return {
    id: p.id,
    name: p.name,
    ingestKey: p.ingestKey,
    retentionDays: p.retentionDays as ProjectInfo['retentionDays'],
    ingestLimit: p.ingestLimit ?? deploymentLimit,
  };
}

export async function loadProject(db: Database, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  return projectInfo(await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } }), deploymentLimit);
}

/** How long raw samples are kept: streams that start from now on follow it. */
export async function setRetention(db: Database, projectId: string, retentionDays: ProjectInfo['retentionDays'], deploymentLimit: number | null): Promise<ProjectInfo> {
  return projectInfo(await db.prisma.project.update({ where: { id: projectId }, data: { retentionDays } }), deploymentLimit);
}

/** A new publishable ingest key in place of the old one (announcing the change is the caller's). */
export async function replaceIngestKey(db: Database, projectId: string, deploymentLimit: number | null): Promise<ProjectInfo> {
  return projectInfo(await db.prisma.project.update({ where: { id: projectId }, data: { ingestKey: newKey('ik') } }), deploymentLimit);
}
