import type { InvitationInfo, InvitationPreview, Role } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';
import { likeLiteral } from '../../db/like.js';
import type { Invitation } from '../../generated/prisma/client.js';
import { hashKey } from '../keys/keys.js';
import { emailKey } from './emails.js';
import { newToken } from './tokens.js';

/** An invitation is good for a week, once. */
export const INVITATION_DAYS = 7;

const info = (r: Invitation): InvitationInfo => ({
  id: Number(r.id),
  email: r.email,
  role: r.role as Role,
  createdAt: r.createdAt.getTime(),
  expiresAt: r.expiresAt.getTime(),
});

/**
 * Invites an address to an organization with a role; a pending invitation of the same address is replaced.
 * `invitedBy`: the person who invites; null for the operator's command.
 */
export async function invite(
  db: Db,
  organizationId: string,
  email: string,
  role: Role,
  invitedBy: string | null,
): Promise<{ invitation: InvitationInfo; token: string }> {
  await db.invitation.updateMany({
    where: { organizationId, email: { equals: likeLiteral(emailKey(email)), mode: 'insensitive' }, acceptedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  const token = newToken('iv');
  const made = await db.invitation.create({
    data: {
      organizationId,
      email: email.trim(),
      role,
      tokenHash: hashKey(token),
      invitedBy,
      expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
    },
  });
  return { invitation: info(made), token };
}

export async function pendingInvitations(db: Db, organizationId: string): Promise<InvitationInfo[]> {
  const rows = await db.invitation.findMany({
    where: { organizationId, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: 'desc' },
  });
  return rows.map(info);
}

export async function revokeInvitation(db: Db, organizationId: string, id: number): Promise<string | null> {
  // One statement, so that a withdrawal and an acceptance at once cannot both succeed.
  const rows = await db.$queryRaw<{ email: string }[]>`
    UPDATE invitation SET revoked_at = now() WHERE id = ${id} AND organization_id = ${organizationId}::uuid AND accepted_at IS NULL AND revoked_at IS NULL
    RETURNING email`;
  return rows[0]?.email ?? null;
}

export interface OpenInvitation {
  id: number;
  organizationId: string;
  organization: string;
  email: string;
  role: Role;
}

/** The pending invitation a token opens (locked in the caller's transaction when `lock`), or null. */
export async function invitationOf(db: Db, token: string, lock = false): Promise<OpenInvitation | null> {
  const tokenHash = hashKey(token);
  if (lock) {
    // Locked so that two acceptances at once cannot both use it (Prisma Client takes no row locks).
    await db.$queryRaw`SELECT 1 FROM invitation WHERE token_hash = ${tokenHash} FOR UPDATE`;
  }
  const row = await db.invitation.findFirst({
    where: { tokenHash, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    include: { organization: { select: { name: true } } },
  });
  return row
    ? {
        id: Number(row.id),
        organizationId: row.organizationId,
        organization: row.organization.name,
        email: row.email,
        role: row.role as Role,
      }
    : null;
}

export async function markAccepted(db: Db, id: number): Promise<void> {
  await db.invitation.update({ where: { id }, data: { acceptedAt: new Date() } });
}

export function preview(invitation: OpenInvitation, account: boolean): InvitationPreview {
  return { organization: invitation.organization, email: invitation.email, role: invitation.role, account };
}
