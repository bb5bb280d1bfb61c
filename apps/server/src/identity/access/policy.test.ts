import { roleAtLeast } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { ACCESS } from './policy.js';

const entries = Object.entries(ACCESS).map(([route, access]) => ({ route, method: route.split(' ')[0]!, path: route.split(' ')[1]!, access }));

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

  it("keeps keys, members, webhooks and retention to admins, and deleting a project to owners", () => {
    const need = (route: string) => ACCESS[route];
    for (const route of ['POST /project/keys', 'DELETE /project/keys/:id', 'POST /project/ingest-key', 'PATCH /project', 'POST /alerts/endpoints', 'GET /alerts/endpoints']) {
      expect(need(route), route).toEqual({ kind: 'project', role: 'admin', scope: 'admin' });
    }
    for (const route of ['PUT /orgs/:orgId/members/:userId', 'DELETE /orgs/:orgId/members/:userId', 'POST /orgs/:orgId/invitations', 'GET /orgs/:orgId/audit']) {
      expect(need(route), route).toEqual({ kind: 'organization', role: 'admin' });
    }
    expect(need('DELETE /orgs/:orgId/projects/:projectId')).toEqual({ kind: 'organization', role: 'owner' });
    expect(need('DELETE /orgs/:orgId')).toEqual({ kind: 'organization', role: 'owner' });
  });

  it('opens to anyone only signing up and in and redeeming links, and only under /auth', () => {
    const open = entries.filter((e) => e.access.kind === 'public');
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
