import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeLink } from '../accounts/links.js';
import { addMember, createOrganization, roleIn } from '../organizations/organizations.js';
import { createUser, userByEmail } from '../accounts/users.js';
import type { Database } from '../../db/database.js';
import { createProject, hashKey, newKey, type NewProject } from './keys.js';

/** The owner a local install makes: they sign in with the link each start prints, and may set a password. */
export const LOCAL_OWNER = 'owner@localhost';

export interface LocalProject extends NewProject {
  /** The token of the lab agent a local install runs beside the server. */
  agentToken: string;
}

/**
 * The project a local install starts with, and its organization's owner. Its keys are kept in the data
 * folder (owner-readable only) so the start command can print them again; a server for many customers
 * lets people sign up instead.
 */
export async function ensureLocalProject(db: Database, dataDir: string): Promise<LocalProject> {
  const { prisma } = db;
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
  project ??= await createProject(db, 'Local project', await createOrganization(prisma, 'Local organization', null));
  if (!agentToken) {
    agentToken = newKey('at');
    await prisma.labAgent.create({ data: { projectId: project.projectId, name: 'local agent', tokenHash: hashKey(agentToken) } });
  }
  const local: LocalProject = { ...project, agentToken };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(local, null, 2), { mode: 0o600 });
  return local;
}

/**
 * Makes sure the local project's organization has its owner, and gives them a new single-use sign-in
 * link's token (the start command prints it); links an earlier start printed and nobody used end.
 */
export async function localOwnerLink(db: Database, projectId: string): Promise<string> {
  return db.prisma.$transaction(async (tx) => {
    const owner =
      (await userByEmail(tx, LOCAL_OWNER)) ?? (await createUser(tx, { email: LOCAL_OWNER, name: 'Local user', passwordHash: null }))!;
    const { organizationId } = await tx.project.findUniqueOrThrow({ where: { id: projectId }, select: { organizationId: true } });
    if (!(await roleIn(tx, owner.id, organizationId))) await addMember(tx, organizationId, owner.id, 'owner');
    await tx.userToken.updateMany({ where: { userId: owner.id, kind: 'sign-in', usedAt: null }, data: { usedAt: new Date() } });
    return (await makeLink(tx, owner.id, 'sign-in')).token;
  });
}
