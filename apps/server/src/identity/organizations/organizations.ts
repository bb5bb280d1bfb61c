import { randomUUID } from 'node:crypto';
import { type MemberInfo, type OrganizationInfo, type Role, ROLES } from '@rtcscope/protocol';
import { administers, memberChangeRefusal, permittedActions } from '../access/policy.js';
import type { Database, Db } from '../../db/database.js';
import { revokeKeysMadeBy } from '../keys/api-keys.js';

/** A new organization with its first owner. */
export async function createOrganization(db: Db, name: string, ownerId: string | null): Promise<string> {
  const { id } = await db.organization.create({ data: { id: randomUUID(), name: name.trim() } });
  if (ownerId) await addMember(db, id, ownerId, 'owner');
  return id;
}

/** An organization's name and its projects, by name; null when there is no such organization. */
export async function organizationWithProjects(
  db: Database,
  organizationId: string,
): Promise<{ name: string; projects: { id: string; name: string }[] } | null> {
  return db.prisma.organization.findUnique({
    where: { id: organizationId },
    select: { name: true, projects: { select: { id: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] } },
  });
}

/** A project's name, when the organization holds it; null otherwise. */
export async function projectNameIn(db: Database, organizationId: string, projectId: string): Promise<string | null> {
  const project = await db.prisma.project.findFirst({ where: { id: projectId, organizationId }, select: { name: true } });
  return project?.name ?? null;
}

/** Renames an organization in the caller's transaction; the name it had. */
export async function renameOrganization(db: Db, organizationId: string, name: string): Promise<string> {
  // Locked, so that two renames at once each record the name they replaced.
  const rows = await db.$queryRaw<{ name: string }[]>`SELECT name FROM organization WHERE id = ${organizationId}::uuid FOR UPDATE`;
  await db.organization.update({ where: { id: organizationId }, data: { name } });
  return rows[0]!.name;
}

/** Deletes the organization's row (its projects' data goes first, with deleteProject; memberships cascade). */
export async function deleteOrganization(db: Db, organizationId: string): Promise<void> {
  await db.organization.delete({ where: { id: organizationId } });
}

/** The organizations a person is a member of (their ids). */
export async function organizationIdsOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db.membership.findMany({ where: { userId }, select: { organizationId: true } });
  return rows.map((r) => r.organizationId);
}

/**
 * Adds a person, or raises the role of one who is a member already (an invitation accepted twice): a
 * role is never lowered here, so that no invitation can unmake an owner.
 */
export async function addMember(db: Db, organizationId: string, userId: string, role: Role): Promise<void> {
  // One statement, so that two invitations accepted at once still leave the higher role.
  await db.$executeRaw`
    INSERT INTO membership (organization_id, user_id, role) VALUES (${organizationId}::uuid, ${userId}::uuid, ${role})
    ON CONFLICT (organization_id, user_id) DO UPDATE SET role = CASE
      WHEN array_position(${ROLES}::text[], EXCLUDED.role::text) > array_position(${ROLES}::text[], membership.role::text) THEN EXCLUDED.role
      ELSE membership.role END`;
}

/** The organizations a person belongs to, with their role and projects, by name. */
export async function organizationsOf(db: Db, userId: string): Promise<OrganizationInfo[]> {
  const rows = await db.membership.findMany({
    where: { userId },
    select: {
      role: true,
      organization: {
        select: { id: true, name: true, projects: { select: { id: true, name: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] } },
      },
    },
    orderBy: [{ organization: { name: 'asc' } }, { organizationId: 'asc' }],
  });
  return rows.map(({ role, organization }) => ({ ...organization, role: role as Role, can: permittedActions(role as Role) }));
}

/** A person's role in an organization; null when they are not a member. */
export async function roleIn(db: Db, userId: string, organizationId: string): Promise<Role | null> {
  const row = await db.membership.findUnique({ where: { organizationId_userId: { organizationId, userId } }, select: { role: true } });
  return (row?.role as Role | undefined) ?? null;
}

/** The organization of a project and a person's role in it; null when they are not a member (or there is no such project). */
export async function projectRole(db: Db, userId: string, projectId: string): Promise<{ organizationId: string; role: Role } | null> {
  const row = await db.membership.findFirst({
    where: { userId, organization: { projects: { some: { id: projectId } } } },
    select: { organizationId: true, role: true },
  });
  return row && { organizationId: row.organizationId, role: row.role as Role };
}

export async function listMembers(db: Db, organizationId: string, asker: { userId: string; role: Role }): Promise<MemberInfo[]> {
  const rows = await db.membership.findMany({
    where: { organizationId },
    select: { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
    orderBy: { user: { emailKey: 'asc' } },
  });
  const owners = rows.filter((r) => r.role === 'owner').length;
  // What the asker may do to each, by the policy's rules, so that the page offers only what would be done.
  const manages = permittedActions(asker.role).includes('manage-members');
  return rows.map(({ role, createdAt, user }) => {
    const member = { userId: user.id, email: user.email, name: user.name, role: role as Role, since: createdAt.getTime() };
    const self = user.id === asker.userId;
    const lastOwner = role === 'owner' && owners === 1;
    return {
      ...member,
      canChange: manages && memberChangeRefusal(asker, member, member.role) === null,
      canRemove: !lastOwner && (self || (manages && memberChangeRefusal(asker, member, null) === null)),
    };
  });
}

/** What changing or removing a member came to; `keysRevoked`, the keys they made that ended with it. */
export type MemberChange =
  | { ok: true; email: string; from: Role; keysRevoked: string[] }
  | { ok: false; why: 'unknown' | 'last-owner' | 'owner-only' | 'admin-rank' };

/**
 * Changes a member's role (or removes them, `role` null) under a lock on the organization's owners, so
 * that two changes at once cannot leave it without one. Only an owner may make or unmake an owner, or
 * change or remove an admin other than themself (an admin who could demote another could then make a
 * reset link for their account). A member who can no longer make API keys loses the keys they made.
 */
export async function changeMember(
  db: Db,
  organizationId: string,
  userId: string,
  role: Role | null,
  asker: { userId: string; role: Role },
): Promise<MemberChange> {
  // The owners and the member locked: Prisma Client takes no row locks.
  const rows = await db.$queryRaw<{ userId: string; role: Role; email: string }[]>`
    SELECT m.user_id AS "userId", m.role, u.email FROM membership m JOIN app_user u ON u.id = m.user_id
    WHERE m.organization_id = ${organizationId}::uuid AND (m.role = 'owner' OR m.user_id = ${userId}::uuid) FOR UPDATE OF m`;
  const member = rows.find((r) => r.userId === userId);
  if (!member) return { ok: false, why: 'unknown' };
  const refusal = memberChangeRefusal(asker, member, role);
  if (refusal) return { ok: false, why: refusal };
  const owners = rows.filter((r) => r.role === 'owner').length;
  if (member.role === 'owner' && role !== 'owner' && owners === 1) return { ok: false, why: 'last-owner' };
  const where = { organizationId_userId: { organizationId, userId } };
  if (role === null) await db.membership.delete({ where });
  else await db.membership.update({ where, data: { role } });
  const keysRevoked =
    role !== null && permittedActions(role).includes('manage-keys') ? [] : await revokeKeysMadeBy(db, organizationId, userId);
  return { ok: true, email: member.email, from: member.role, keysRevoked };
}

/**
 * Why `askerId` may not have a password-reset link made for `userId`'s account, or null when they may.
 * Whoever holds the link holds the account, in every organization it is in: the asker must administer
 * each of them (an owner there, or an admin where the person is below admin).
 */
export async function resetLinkRefusal(db: Db, askerId: string, userId: string): Promise<string | null> {
  if (askerId === userId) return 'this is your own account: change your password on the Account page';
  const theirs = await db.membership.findMany({ where: { userId }, select: { organizationId: true, role: true } });
  const mine = await db.membership.findMany({
    where: { userId: askerId, organizationId: { in: theirs.map((t) => t.organizationId) } },
    select: { organizationId: true, role: true },
  });
  const roleOf = (organizationId: string) => (mine.find((m) => m.organizationId === organizationId)?.role as Role | undefined) ?? null;
  if (theirs.every((t) => administers(roleOf(t.organizationId), t.role as Role))) return null;
  return 'you do not administer every organization this person is in (or they are an admin here): they can reset their own password from the sign-in page, or an owner can make the link';
}
