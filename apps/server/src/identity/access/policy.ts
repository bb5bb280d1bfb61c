import { ACTIONS, type Action, type Role, ROLES, roleAtLeast, type Scope } from '@rtcscope/protocol';

/**
 * Who may call each `/api/v1` route, in one place. The access plugin refuses a route missing here (the
 * server does not start), and the table-driven test walks every entry.
 * - `public`: anyone (signing up and in, redeeming a link);
 * - `person`: any signed-in person, not an API key (their own account, making an organization);
 * - `organization`: a person with at least `role` in the organization of the path's `:orgId`;
 * - `project`: the project of an API key that has `scope` (null: no key may), or a person with at least
 *   `role` in the organization of the project their request names (`rtcscope-project` header).
 */
export type Access =
  { kind: 'public' } | { kind: 'person' } | { kind: 'organization'; role: Role } | { kind: 'project'; role: Role; scope: Scope | null };

const PUBLIC: Access = { kind: 'public' };
const PERSON: Access = { kind: 'person' };
const org = (role: Role): Access => ({ kind: 'organization', role });
const project = (role: Role, scope: Scope | null): Access => ({ kind: 'project', role, scope });

export const ACCESS: Readonly<Record<string, Access>> = {
  'POST /auth/sign-up': PUBLIC,
  'POST /auth/sign-in': PUBLIC,
  'POST /auth/link': PUBLIC,
  'POST /auth/password-reset/request': PUBLIC,
  'POST /auth/password-reset': PUBLIC,
  'POST /auth/invitations/preview': PUBLIC,
  'POST /auth/invitations/accept': PUBLIC,
  'POST /auth/sso/start': PUBLIC,
  'GET /auth/sso/callback': PUBLIC,
  'POST /hosted-test/recipient': PUBLIC,

  'GET /auth/me': PERSON,
  'POST /auth/sign-out': PERSON,
  'GET /account/sessions': PERSON,
  'DELETE /account/sessions/:id': PERSON,
  'POST /account/password': PERSON,
  'POST /orgs': PERSON,

  'PATCH /orgs/:orgId': org('admin'),
  'DELETE /orgs/:orgId': org('owner'),
  'GET /orgs/:orgId/members': org('viewer'),
  'PUT /orgs/:orgId/members/:userId': org('admin'),
  'DELETE /orgs/:orgId/members/:userId': org('admin'),
  'DELETE /orgs/:orgId/membership': org('viewer'),
  'POST /orgs/:orgId/members/:userId/reset-link': org('admin'),
  'POST /orgs/:orgId/invitations': org('admin'),
  'DELETE /orgs/:orgId/invitations/:id': org('admin'),
  'POST /orgs/:orgId/projects': org('admin'),
  'DELETE /orgs/:orgId/projects/:projectId': org('owner'),
  'GET /orgs/:orgId/audit': org('admin'),
  'GET /orgs/:orgId/audit/export': org('admin'),
  'GET /orgs/:orgId/sso': org('admin'),
  'PUT /orgs/:orgId/sso': org('admin'),
  'POST /orgs/:orgId/sso/verify': org('admin'),
  'DELETE /orgs/:orgId/sso': org('admin'),

  'GET /project': project('viewer', 'read'),
  'PATCH /project': project('admin', 'admin'),
  'GET /project/keys': project('admin', 'admin'),
  'POST /project/keys': project('admin', 'admin'),
  'DELETE /project/keys/:id': project('admin', 'admin'),
  'POST /project/ingest-key': project('admin', 'admin'),
  'GET /project/turn': project('admin', 'admin'),
  'PUT /project/turn': project('admin', 'admin'),
  'DELETE /project/turn': project('admin', 'admin'),
  'GET /project/livekit': project('admin', 'admin'),
  'PUT /project/livekit': project('admin', 'admin'),
  'DELETE /project/livekit': project('admin', 'admin'),

  'GET /calls': project('viewer', 'read'),
  'GET /calls/:callId': project('viewer', 'read'),
  'GET /calls/:callId/events': project('viewer', 'read'),
  'GET /calls/:callId/series': project('viewer', 'read'),
  'GET /calls/:callId/fairness': project('viewer', 'read'),
  'GET /calls/:callId/diagnosis': project('viewer', 'read'),
  'GET /calls/:callId/export.csv': project('viewer', 'read'),
  'GET /calls/:callId/export.rtcstats': project('viewer', 'read'),
  'GET /issues': project('viewer', 'read'),
  'GET /insights': project('viewer', 'read'),
  'GET /precall-tests': project('viewer', 'read'),
  'GET /precall-tests/insights': project('viewer', 'read'),
  'GET /precall-tests/:callId': project('viewer', 'read'),
  'POST /recordings': project('member', 'ingest'),
  'GET /score-calibrations/latest': project('viewer', 'read'),
  'POST /score-calibrations': project('admin', 'lab'),
  'POST /sfu/janus/events': project('member', 'ingest'),
  'POST /sfu/livekit/events': project('member', 'ingest'),
  // Signed by the project's LiveKit server (a JWT of the key set on the project page): checked by the route.
  'POST /sfu/livekit/webhook/:projectId': PUBLIC,

  'GET /alerts/rules': project('viewer', 'read'),
  'POST /alerts/rules': project('member', 'admin'),
  'PUT /alerts/rules/:id': project('member', 'admin'),
  'DELETE /alerts/rules/:id': project('member', 'admin'),
  'POST /alerts/rules/:id/test': project('member', 'admin'),
  'GET /alerts/notifications': project('viewer', 'read'),
  'GET /alerts/endpoints': project('admin', 'admin'),
  'POST /alerts/endpoints': project('admin', 'admin'),
  'PUT /alerts/endpoints/:id': project('admin', 'admin'),
  'DELETE /alerts/endpoints/:id': project('admin', 'admin'),
  'GET /alerts/endpoints/:id/deliveries': project('admin', 'admin'),

  'GET /lab/campaigns': project('viewer', 'read'),
  'POST /lab/campaigns': project('member', 'lab'),
  'GET /lab/campaigns/:id': project('viewer', 'read'),
  'POST /lab/campaigns/:id/cancel': project('member', 'lab'),
  'POST /lab/runs/:id/cancel': project('member', 'lab'),
  'GET /lab/agents': project('viewer', 'read'),
  'POST /lab/agents': project('admin', 'lab'),
  'DELETE /lab/agents/:id': project('admin', 'lab'),
};

/** Each action the dashboard offers, by the route that does it: a person may take it where their role may call that route. */
const ACTION_ROUTES: Readonly<Record<Action, string>> = {
  read: 'GET /calls',
  'import-recordings': 'POST /recordings',
  'run-lab': 'POST /lab/campaigns',
  'edit-alert-rules': 'POST /alerts/rules',
  'manage-webhooks': 'POST /alerts/endpoints',
  'manage-agents': 'POST /lab/agents',
  'manage-project': 'PATCH /project',
  'manage-keys': 'POST /project/keys',
  'manage-members': 'PUT /orgs/:orgId/members/:userId',
  'manage-organization': 'PATCH /orgs/:orgId',
  'create-projects': 'POST /orgs/:orgId/projects',
  'delete-projects': 'DELETE /orgs/:orgId/projects/:projectId',
  'delete-organization': 'DELETE /orgs/:orgId',
  'read-audit': 'GET /orgs/:orgId/audit',
  'manage-sso': 'PUT /orgs/:orgId/sso',
};

/** What a person of `role` may do in an organization and its projects (`GET /auth/me` says it per organization). */
export function permittedActions(role: Role): Action[] {
  return ACTIONS.filter((action) => {
    const access = ACCESS[ACTION_ROUTES[action]]!;
    return (access.kind === 'project' || access.kind === 'organization') && roleAtLeast(role, access.role);
  });
}

/** The roles a person of `role` may give, inviting or changing a member: only an owner makes an owner. */
export function assignableRoles(role: Role): Role[] {
  return ROLES.filter((r) => r !== 'owner' || role === 'owner');
}

/**
 * Whether `asker` (who may manage members) may change `member` to `to` (null: remove them), by rank alone:
 * only an owner makes or unmakes an owner, or changes or removes an admin other than themself (an admin who
 * could demote another could then make a reset link for their account). That an organization keeps an
 * owner is a stored fact, checked where the change is made.
 */
export function memberChangeRefusal(
  asker: { userId: string; role: Role },
  member: { userId: string; role: Role },
  to: Role | null,
): 'owner-only' | 'admin-rank' | null {
  const byOwner = asker.role === 'owner';
  if ((member.role === 'owner' || to === 'owner') && !byOwner) return 'owner-only';
  if (member.role === 'admin' && !byOwner && member.userId !== asker.userId) return 'admin-rank';
  return null;
}

/** Whether a person of role `mine` (none: not a member) administers one of role `theirs`: an owner anyone, an admin those below admin. */
export function administers(mine: Role | null, theirs: Role): boolean {
  return mine === 'owner' || (mine === 'admin' && !roleAtLeast(theirs, 'admin'));
}
