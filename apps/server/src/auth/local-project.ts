import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrismaClient } from '../generated/prisma/client.js';
import { createProject, hashKey, newKey, type NewProject } from './keys.js';

export interface LocalProject extends NewProject {
  /** The token of the lab agent a local install runs beside the server. */
  agentToken: string;
}

/**
 * The project a local install starts with. Its keys are kept in the data folder (owner-readable only)
 * so the start command can print them again; a server for many customers creates projects instead.
 */
export async function ensureLocalProject(prisma: PrismaClient, dataDir: string): Promise<LocalProject> {
  const file = join(dataDir, 'local-project.json');
  let project: NewProject | null = null;
  let agentToken: string | undefined;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalProject> & NewProject;
    const key = await prisma.apiKey.findUnique({ where: { hash: hashKey(saved.apiKey) }, include: { project: true } });
    if (key && key.projectId === saved.projectId) {
      project = { ...saved, ingestKey: key.project.ingestKey };
      const agent = saved.agentToken && (await prisma.labAgent.findUnique({ where: { tokenHash: hashKey(saved.agentToken) } }));
      if (agent) agentToken = saved.agentToken;
    }
  }
  project ??= await createProject(prisma, 'Local project');
  if (!agentToken) {
    agentToken = newKey('at');
    await prisma.labAgent.create({ data: { projectId: project.projectId, name: 'local agent', tokenHash: hashKey(agentToken) } });
  }
  const local: LocalProject = { ...project, agentToken };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(local, null, 2), { mode: 0o600 });
  return local;
}
