import { randomUUID } from 'node:crypto';
import type { MemberInfo, OrganizationInfo, Role } from '@rtcscope/protocol';
import type pg from 'pg';

/** A new organization with its first owner. */
export async function createOrganization(db: pg.ClientBase, name: string, ownerId: string | null): Promise<string> {
  const id = randomUUID();
  await db.query('INSERT INTO organization (id, name) VALUES ($1, $2)', [id, name.trim()]);
  if (ownerId) await addMember(db, id, ownerId, 'owner');
  return id;
}

/** Adds a person, or changes the role of one who is a member already (an invitation accepted twice). */
export async function addMember(db: pg.ClientBase, organizationId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    `INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [organizationId, userId, role],
  );
}

/** The organizations a person belongs to, with their role and projects, by name. */
export async function organizationsOf(pool: pg.Pool, userId: string): Promise<OrganizationInfo[]> {
  const { rows } = await pool.query<OrganizationInfo>(
    `SELECT o.id, o.name, m.role,
       coalesce((SELECT json_agg(json_build_object('id', p.id, 'name', p.name) ORDER BY p.name, p.id)
                 FROM project p WHERE p.organization_id = o.id), '[]') AS projects
     FROM membership m JOIN organization o ON o.id = m.organization_id
     WHERE m.user_id = $1 ORDER BY o.name, o.id`,
    [userId],
  );
  return rows;
}

/** A person's role in an organization; null when they are not a member. */
export async function roleIn(db: pg.ClientBase | pg.Pool, userId: string, organizationId: string): Promise<Role | null> {
  const { rows } = await db.query<{ role: Role }>('SELECT role FROM membership WHERE organization_id = $1 AND user_id = $2', [organizationId, userId]);
  return rows[0]?.role ?? null;
}

/** The organization of a project and a person's role in it; null when they are not a member (or there is no such project). */
export async function projectRole(pool: pg.Pool, userId: string, projectId: string): Promise<{ organizationId: string; role: Role } | null> {
  const { rows } = await pool.query<{ organizationId: string; role: Role }>(
    `SELECT p.organization_id AS "organizationId", m.role FROM project p
     JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = $2 WHERE p.id = $1`,
    [projectId, userId],
  );
  return rows[0] ?? null;
}

export async function listMembers(pool: pg.Pool, organizationId: string): Promise<MemberInfo[]> {
  const { rows } = await pool.query<{ userId: string; email: string; name: string; role: Role; since: Date }>(
    `SELECT u.id AS "userId", u.email, u.name, m.role, m.created_at AS since FROM membership m
     JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email_key`,
    [organizationId],
  );
  return rows.map((r) => ({ ...r, since: r.since.getTime() }));
}

/** What changing or removing a member came to. */
export type MemberChange = { ok: true; email: string; from: Role } | { ok: false; why: 'unknown' | 'last-owner' | 'owner-only' };

/**
 * Changes a member's role (or removes them, `role` null) under a lock on the organization's owners, so
 * that two changes at once cannot leave it without one. Only an owner may make or unmake an owner.
 */
export async function changeMember(client: pg.ClientBase, organizationId: string, userId: string, role: Role | null, byOwner: boolean): Promise<MemberChange> {
  const { rows } = await client.query<{ userId: string; role: Role; email: string }>(
    `SELECT m.user_id AS "userId", m.role, u.email FROM membership m JOIN app_user u ON u.id = m.user_id
     WHERE m.organization_id = $1 AND (m.role = 'owner' OR m.user_id = $2) FOR UPDATE OF m`,
    [organizationId, userId],
  );
  const member = rows.find((r) => r.userId === userId);
  if (!member) return { ok: false, why: 'unknown' };
  if ((member.role === 'owner' || role === 'owner') && !byOwner) return { ok: false, why: 'owner-only' };
  const owners = rows.filter((r) => r.role === 'owner').length;
  if (member.role === 'owner' && role !== 'owner' && owners === 1) return { ok: false, why: 'last-owner' };
  if (role === null) await client.query('DELETE FROM membership WHERE organization_id = $1 AND user_id = $2', [organizationId, userId]);
  else await client.query('UPDATE membership SET role = $3 WHERE organization_id = $1 AND user_id = $2', [organizationId, userId, role]);
  return { ok: true, email: member.email, from: member.role };
}
