import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrismaClient } from '../generated/prisma/client.js';
import { createProject, hashKey, type NewProject } from './keys.js';

/**
 * The project a local install starts with. Its keys are kept in the data folder (owner-readable only)
 * so the start command can print them again; a server for many customers creates projects instead.
 */
export async function ensureLocalProject(prisma: PrismaClient, dataDir: string): Promise<NewProject> {
  const file = join(dataDir, 'local-project.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as NewProject;
    const key = await prisma.apiKey.findUnique({ where: { hash: hashKey(saved.apiKey) }, include: { project: true } });
    if (key && key.projectId === saved.projectId) return { ...saved, ingestKey: key.project.ingestKey };
  }
  const project = await createProject(prisma, 'Local project');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(project, null, 2), { mode: 0o600 });
  return project;
}
