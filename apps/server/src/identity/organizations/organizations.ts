import { randomUUID } from 'node:crypto';
import { type MemberInfo, type OrganizationInfo, type Role, ROLES } from '@rtcscope/protocol';
import { administers, memberChangeRefusal, permittedActions } from '../access/policy.js';
import type pg from 'pg';
import type { Database } from '../../db/database.js';
import { revokeKeysMadeBy } from '../keys/api-keys.js';

/** A new organization with its first owner. */
export async function createOrganization(db: pg.ClientBase, name: string, ownerId: string | null): Promise<string> {
  const id = randomUUID();
  await db.query('INSERT INTO organization (id, name) VALUES ($1, $2)', [id, name.trim()]);
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

/** Renames an organization in `client`'s transaction; the name it had. */
export async function renameOrganization(client: pg.ClientBase, organizationId: string, name: string): Promise<string> {
  const { rows } = await client.query<{ name: string }>('SELECT name FROM organization WHERE id = $1 FOR UPDATE', [organizationId]);
  await client.query('UPDATE organization SET name = $2 WHERE id = $1', [organizationId, name]);
  return rows[0]!.name;
}

/** Deletes the organization's row (its projects' data goes first, with deleteProject; memberships cascade). */
export async function deleteOrganization(client: pg.ClientBase, organizationId: string): Promise<void> {
  await client.query('DELETE FROM organization WHERE id = $1', [organizationId]);
}

/** The organizations a person is a member of (their ids). */
export async function organizationIdsOf(db: pg.ClientBase, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ organization_id: string }>('SELECT organization_id FROM membership WHERE user_id = $1', [userId]);
  return rows.map((r) => r.organization_id);
}

/**
 * Adds a person, or raises the role of one who is a member already (an invitation accepted twice): a
 * role is never lowered here, so that no invitation can unmake an owner.
 */
export async function addMember(db: pg.ClientBase, organizationId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO UPDATE SET role = CASE
       WHEN array_position($4::text[], EXCLUDED.role::text) > array_position($4::text[], membership.role::text) THEN EXCLUDED.role ELSE membership.role END`,
    [organizationId, userId, role, ROLES],
  );
}

/** The organizations a person belongs to, with their role and projects, by name. */
export async function organizationsOf(pool: pg.Pool, userId: string): Promise<OrganizationInfo[]> {
  const { rows } = await pool.query<Omit<OrganizationInfo, 'can'>>(
    `SELECT o.id, o.name, m.role,
       coalesce((SELECT json_agg(json_build_object('id', p.id, 'name', p.name) ORDER BY p.name, p.id)
                 FROM project p WHERE p.organization_id = o.id), '[]') AS projects
     FROM membership m JOIN organization o ON o.id = m.organization_id
     WHERE m.user_id = $1 ORDER BY o.name, o.id`,
    [userId],
  );
  return rows.map((o) => ({ ...o, can: permittedActions(o.role) }));
}

/** A person's role in an organization; null when they are not a member. */
export async function roleIn(db: pg.ClientBase | pg.Pool, userId: string, organizationId: string): Promise<Role | null> {
  const { rows } = await db.query<{ role: Role }>('SELECT role FROM membership WHERE organization_id = $1 AND user_id = $2', [
    organizationId,
    userId,
  ]);
  return rows[0]?.role ?? null;
}

/** The organization of a project and a person's role in it; null when they are not a member (or there is no such project). */
export async function projectRole(
  pool: pg.Pool,
  userId: string,
  projectId: string,
): Promise<{ organizationId: string; role: Role } | null> {
  const { rows } = await pool.query<{ organizationId: string; role: Role }>(
    `SELECT p.organization_id AS "organizationId", m.role FROM project p
     JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = $2 WHERE p.id = $1`,
    [projectId, userId],
  );
  return rows[0] ?? null;
}

export async function listMembers(pool: pg.Pool, organizationId: string, asker: { userId: string; role: Role }): Promise<MemberInfo[]> {
  const { rows } = await pool.query<{ userId: string; email: string; name: string; role: Role; since: Date; lastOwner: boolean }>(
    `SELECT u.id AS "userId", u.email, u.name, m.role, m.created_at AS since,
            m.role = 'owner' AND (SELECT count(*) FROM membership o WHERE o.organization_id = m.organization_id AND o.role = 'owner') = 1 AS "lastOwner"
     FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email_key`,
    [organizationId],
  );
  // What the asker may do to each, by the policy's rules, so that the page offers only what would be done.
  const manages = permittedActions(asker.role).includes('manage-members');
  return rows.map(({ lastOwner, ...r }) => {
    const self = r.userId === asker.userId;
    return {
      ...r,
      since: r.since.getTime(),
      canChange: manages && memberChangeRefusal(asker, r, r.role) === null,
      canRemove: !lastOwner && (self || (manages && memberChangeRefusal(asker, r, null) === null)),
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
  client: pg.ClientBase,
  organizationId: string,
  userId: string,
  role: Role | null,
  asker: { userId: string; role: Role },
): Promise<MemberChange> {
  const { rows } = await client.query<{ userId: string; role: Role; email: string }>(
    `SELECT m.user_id AS "userId", m.role, u.email FROM membership m JOIN app_user u ON u.id = m.user_id
     WHERE m.organization_id = $1 AND (m.role = 'owner' OR m.user_id = $2) FOR UPDATE OF m`,
    [organizationId, userId],
  );
  const member = rows.find((r) => r.userId === userId);
  if (!member) return { ok: false, why: 'unknown' };
  const refusal = memberChangeRefusal(asker, member, role);
  if (refusal) return { ok: false, why: refusal };
  const owners = rows.filter((r) => r.role === 'owner').length;
  if (member.role === 'owner' && role !== 'owner' && owners === 1) return { ok: false, why: 'last-owner' };
  if (role === null) await client.query('DELETE FROM membership WHERE organization_id = $1 AND user_id = $2', [organizationId, userId]);
  else await client.query('UPDATE membership SET role = $3 WHERE organization_id = $1 AND user_id = $2', [organizationId, userId, role]);
  const keysRevoked =
    role !== null && permittedActions(role).includes('manage-keys') ? [] : await revokeKeysMadeBy(client, organizationId, userId);
  return { ok: true, email: member.email, from: member.role, keysRevoked };
}

/**
 * Why `askerId` may not have a password-reset link made for `userId`'s account, or null when they may.
 * Whoever holds the link holds the account, in every organization it is in: the asker must administer
 * each of them (an owner there, or an admin where the person is below admin).
 */
export async function resetLinkRefusal(db: pg.Pool, askerId: string, userId: string): Promise<string | null> {
  if (askerId === userId) return 'this is your own account: change your password on the Account page';
  const { rows } = await db.query<{ theirs: Role; mine: Role | null }>(
    `SELECT t.role AS theirs, a.role AS mine FROM membership t
     LEFT JOIN membership a ON a.organization_id = t.organization_id AND a.user_id = $1 WHERE t.user_id = $2`,
    [askerId, userId],
  );
  if (rows.every(({ mine, theirs }) => administers(mine, theirs))) return null;
  return 'you do not administer every organization this person is in (or they are an admin here): they can reset their own password from the sign-in page, or an owner can make the link';
}
