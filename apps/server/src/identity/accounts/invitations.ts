import type { InvitationInfo, InvitationPreview, Role } from '@rtcscope/protocol';
import type pg from 'pg';
import { hashKey } from '../keys/keys.js';
import { emailKey } from './emails.js';
import { newToken } from './tokens.js';

/** An invitation is good for a week, once. */
export const INVITATION_DAYS = 7;

interface Row {
  id: number;
  email: string;
  role: Role;
  created_at: Date;
  expires_at: Date;
}
const info = (r: Row): InvitationInfo => ({
  id: r.id,
  email: r.email,
  role: r.role,
  createdAt: r.created_at.getTime(),
  expiresAt: r.expires_at.getTime(),
});

/** Invites an address to an organization with a role; a pending invitation of the same address is replaced. */
/** `invitedBy`: the person who invites; null for the operator's command. */
export async function invite(
  client: pg.ClientBase,
  organizationId: string,
  email: string,
  role: Role,
  invitedBy: string | null,
): Promise<{ invitation: InvitationInfo; token: string }> {
  await client.query(
    `UPDATE invitation SET revoked_at = now() WHERE organization_id = $1 AND lower(email) = $2 AND accepted_at IS NULL AND revoked_at IS NULL`,
    [organizationId, emailKey(email)],
  );
  const token = newToken('iv');
  const { rows } = await client.query<Row>(
    `INSERT INTO invitation (organization_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) RETURNING id::int AS id, email, role, created_at, expires_at`,
    [organizationId, email.trim(), role, hashKey(token), invitedBy, INVITATION_DAYS],
  );
  return { invitation: info(rows[0]!), token };
}

export async function pendingInvitations(pool: pg.Pool, organizationId: string): Promise<InvitationInfo[]> {
  const { rows } = await pool.query<Row>(
    `SELECT id::int AS id, email, role, created_at, expires_at FROM invitation
     WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC`,
    [organizationId],
  );
  return rows.map(info);
}

export async function revokeInvitation(client: pg.ClientBase, organizationId: string, id: number): Promise<string | null> {
  const { rows } = await client.query<{ email: string }>(
    'UPDATE invitation SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email',
    [id, organizationId],
  );
  return rows[0]?.email ?? null;
}

export interface OpenInvitation {
  id: number;
  organizationId: string;
  organization: string;
  email: string;
  role: Role;
}

/** The pending invitation a token opens (locked in `client`'s transaction when `lock`), or null. */
export async function invitationOf(db: pg.ClientBase | pg.Pool, token: string, lock = false): Promise<OpenInvitation | null> {
  const { rows } = await db.query<OpenInvitation>(
    `SELECT i.id::int AS id, i.organization_id AS "organizationId", o.name AS organization, i.email, i.role
     FROM invitation i JOIN organization o ON o.id = i.organization_id
     WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()${lock ? ' FOR UPDATE OF i' : ''}`,
    [hashKey(token)],
  );
  return rows[0] ?? null;
}

export async function markAccepted(client: pg.ClientBase, id: number): Promise<void> {
  await client.query('UPDATE invitation SET accepted_at = now() WHERE id = $1', [id]);
}

export function preview(invitation: OpenInvitation, account: boolean): InvitationPreview {
  return { organization: invitation.organization, email: invitation.email, role: invitation.role, account };
}
