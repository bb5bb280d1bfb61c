import { ACTIONS, ROLES, roleAtLeast } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { ACCESS, administers, assignableRoles, memberChangeRefusal, permittedActions } from './policy.js';

const entries = Object.entries(ACCESS).map(([route, access]) => ({
  route,
  method: route.split(' ')[0]!,
  path: route.split(' ')[1]!,
  access,
}));

describe('the access policy', () => {
  it('lets a viewer, or a read-scoped key, read every project route and change none', () => {
    for (const { route, method, access } of entries) {
      if (access.kind !== 'project') continue;
      if (method === 'GET' && access.role === 'viewer') expect(access.scope, route).toBe('read');
      if (method !== 'GET') {
        expect(roleAtLeast(access.role, 'member'), route).toBe(true);
        expect(access.scope, route).not.toBe('read');
      }
    }
  });

  it('keeps keys, members, webhooks and retention to admins, and deleting a project to owners', () => {
    const need = (route: string) => ACCESS[route];
    for (const route of [
      'POST /project/keys',
      'DELETE /project/keys/:id',
      'POST /project/ingest-key',
      'PATCH /project',
      'POST /alerts/endpoints',
      'GET /alerts/endpoints',
    ]) {
      expect(need(route), route).toEqual({ kind: 'project', role: 'admin', scope: 'admin' });
    }
    for (const route of [
      'PUT /orgs/:orgId/members/:userId',
      'DELETE /orgs/:orgId/members/:userId',
      'POST /orgs/:orgId/invitations',
      'GET /orgs/:orgId/audit',
    ]) {
      expect(need(route), route).toEqual({ kind: 'organization', role: 'admin' });
    }
    expect(need('DELETE /orgs/:orgId/projects/:projectId')).toEqual({ kind: 'organization', role: 'owner' });
    expect(need('DELETE /orgs/:orgId')).toEqual({ kind: 'organization', role: 'owner' });
  });

  it("opens to anyone only signing up and in and redeeming links, under /auth, the hosted test page's question, and LiveKit's webhooks (each checked against the project's LiveKit key by its route)", () => {
    const signed = ['POST /hosted-test/recipient', 'POST /sfu/livekit/webhook/:projectId'];
    expect(entries.filter((e) => signed.includes(e.route)).map((e) => e.access.kind)).toEqual(['public', 'public']);
    const open = entries.filter((e) => e.access.kind === 'public' && !signed.includes(e.route));
    // The one GET: where an identity provider sends the browser back.
    expect(open.every((e) => e.path.startsWith('/auth/') && (e.method === 'POST' || e.route === 'GET /auth/sso/callback'))).toBe(true);
    expect(open.map((e) => e.route)).toContain('POST /auth/sign-in');
  });

  it('puts every organization route under /orgs/:orgId, and every route for people outside project paths', () => {
    for (const { route, path, access } of entries) {
      if (access.kind === 'organization') expect(path.startsWith('/orgs/:orgId'), route).toBe(true);
      if (access.kind === 'project') expect(/^\/(auth|account|orgs)\b/.test(path), route).toBe(false);
    }
  });
});

describe('what the policy tells the dashboard a person may do', () => {
  it('grows with the role, each action following the route that does it', () => {
    expect(permittedActions('viewer')).toEqual(['read']);
    expect(permittedActions('member')).toEqual(['read', 'import-recordings', 'run-lab', 'edit-alert-rules']);
    expect(permittedActions('admin')).toEqual(ACTIONS.filter((a) => a !== 'delete-projects' && a !== 'delete-organization'));
    expect(permittedActions('owner')).toEqual([...ACTIONS]);
  });

  it('lets only an owner make an owner, or change an admin other than themself; anyone else of lower rank an admin may', () => {
    const owner = { userId: 'o', role: 'owner' as const };
    const admin = { userId: 'a', role: 'admin' as const };
    expect(assignableRoles('owner')).toEqual([...ROLES]);
    expect(assignableRoles('admin')).toEqual(['viewer', 'member', 'admin']);
    expect(memberChangeRefusal(admin, { userId: 'm', role: 'member' }, 'admin')).toBeNull();
    expect(memberChangeRefusal(admin, { userId: 'm', role: 'member' }, null)).toBeNull();
    expect(memberChangeRefusal(admin, { userId: 'm', role: 'member' }, 'owner')).toBe('owner-only');
    expect(memberChangeRefusal(admin, { userId: 'o', role: 'owner' }, 'admin')).toBe('owner-only');
    expect(memberChangeRefusal(admin, { userId: 'b', role: 'admin' }, 'member')).toBe('admin-rank');
    expect(memberChangeRefusal(admin, admin, 'member')).toBeNull();
    expect(memberChangeRefusal(owner, { userId: 'b', role: 'admin' }, null)).toBeNull();
    expect(memberChangeRefusal(owner, { userId: 'p', role: 'owner' }, 'viewer')).toBeNull();
  });

  it('has an owner administer anyone and an admin those below admin', () => {
    expect(ROLES.map((r) => administers('owner', r))).toEqual([true, true, true, true]);
    expect(ROLES.map((r) => administers('admin', r))).toEqual([true, true, false, false]);
    expect(ROLES.map((r) => administers('member', r))).toEqual([false, false, false, false]);
    expect(administers(null, 'viewer')).toBe(false);
  });
});
