import {
  ApiError,
  AuditList,
  AuditQuery,
  InvitationCreate,
  InvitationCreated,
  MemberList,
  OrganizationCreate,
  ProjectCreate,
  ProjectCreated,
  DeleteConfirmation,
  ResetLink,
  type Role,
  RoleChange,
  SsoConnection,
  SsoConnectionInfo,
  toCsvText,
} from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { emailKey } from '../accounts/emails.js';
import { invite, pendingInvitations, revokeInvitation } from '../accounts/invitations.js';
import { linkUrl, makeLink } from '../accounts/links.js';
import {
  changeMember,
  deleteOrganization,
  listMembers,
  organizationWithProjects,
  projectNameIn,
  renameOrganization,
  resetLinkRefusal,
} from './organizations.js';
import { auditRequest, requestActor, sessionOfRequest } from '../access/plugin.js';
import { assignableRoles, permittedActions } from '../access/policy.js';
import { audit, readAudit } from '../audit/log.js';
import { addProject } from '../keys/keys.js';
import { errorBody } from '../../http/errors.js';
import { deleteProject } from '../projects/deletion.js';
import { purgeSamples } from '../../samples/purge.js';
import { ID_ANSWERS, IdParams, Uuid } from '../../http/schemas.js';

const OrgParams = Type.Object({ orgId: Uuid });
const MemberParams = Type.Object({ orgId: Uuid, userId: Uuid });
const OrgIdParams = Type.Composite([OrgParams, IdParams]);
const ProjectParams = Type.Object({ orgId: Uuid, projectId: Uuid });
const NONE = { 204: Type.Null(), ...ID_ANSWERS };
/** How long a node may still be writing a batch it took before it heard that its project was deleted. */
const IN_FLIGHT_MS = 5000;

const refusals = {
  unknown: [404, 'no such member of this organization'],
  'last-owner': [409, 'this is the last owner: make someone else owner first'],
  'owner-only': [403, 'only an owner may make, change or remove an owner'],
  'admin-rank': [403, 'only an owner may change or remove an admin'],
} as const;

/**
 * An organization run by its people: members and their roles, invitations (mailed where SMTP is set,
 * else the link is given to the admin to pass on), password-reset links for members, projects made and
 * deleted, and the audit log. Every change is recorded in the audit log in its own transaction.
 */
export async function organizationRoutes(app: FastifyInstance) {
  const { db, accounts } = app;
  const { pool } = db;
  const orgOf = (request: FastifyRequest) => request.grant!.organizationId;
  /** The person asking, with their role here: what the policy's member rules are asked about. */
  const askerOf = (request: FastifyRequest) => ({ userId: sessionOfRequest(request).userId, role: request.grant!.role! });
  /**
   * Deletes a project of the request's organization with its data, recorded in the audit log; false when
   * it was gone already. Samples hang from no project row: they go after the answer, and once more when
   * batches that nodes took before they heard of it are written.
   */
  const removeProject = async (request: FastifyRequest, projectId: string, name: string): Promise<boolean> => {
    const organizationId = orgOf(request);
    const deleted = await deleteProject(db, projectId, name, (tx, { calls }) =>
      audit(tx, requestActor(request), { organizationId, action: 'project.deleted', projectId, target: name, detail: { calls } }),
    );
    if (!deleted) return false;
    void purgeSamples(pool, deleted)
      .then(() => new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_MS).unref()))
      .then(() => purgeSamples(pool, deleted))
      .catch((err: Error) =>
        app.log.warn({ err: { message: err.message }, projectId }, 'deleted project: its samples are not all deleted yet'),
      );
    return true;
  };
  /**
   * Gives a member a role, or removes them (`role` null), recorded as what `record` says of the role they
   * had; then the organization's dashboards' sockets recheck who may watch. The answer: 204, or why not.
   */
  const answerMemberChange = async (
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    role: Role | null,
    record: (from: Role) => [action: string, detail: Record<string, unknown>],
  ) => {
    const change = await db.prisma.$transaction(async (tx) => {
      const done = await changeMember(tx, orgOf(request), userId, role, {
        userId: sessionOfRequest(request).userId,
        role: request.grant!.role!,
      });
      if (done.ok) {
        const [action, detail] = record(done.from);
        await auditRequest(tx, request, action, done.email, {
          ...detail,
          ...(done.keysRevoked.length ? { keysRevoked: done.keysRevoked } : {}),
        });
      }
      return done;
    });
    if (!change.ok) return reply.code(refusals[change.why][0]).send(errorBody(refusals[change.why][0], refusals[change.why][1]));
    const { projects } = (await organizationWithProjects(db, orgOf(request)))!;
    for (const { id } of projects) await app.projectChanges.announce({ projectId: id, deleted: false });
    return reply.code(204).send();
  };

  app.patch<{ Params: { orgId: string }; Body: OrganizationCreate }>(
    '/orgs/:orgId',
    {
      schema: {
        summary: 'Rename the organization',
        params: OrgParams,
        body: OrganizationCreate,
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      await db.prisma.$transaction(async (tx) => {
        const from = await renameOrganization(tx, orgOf(request), name);
        await auditRequest(tx, request, 'organization.renamed', name, { from });
      });
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: { orgId: string }; Body: DeleteConfirmation }>(
    '/orgs/:orgId',
    {
      schema: {
        summary:
          'Delete the organization with every project and all of their data, for good, confirmed by its name; its members keep their accounts (and their other organizations)',
        params: OrgParams,
        body: DeleteConfirmation,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      const { name, projects } = (await organizationWithProjects(db, organizationId))!;
      if (name !== request.body.confirm)
        return reply.code(409).send(errorBody(409, `type the organization's name, "${name}", to confirm: nothing was deleted`));
      for (const p of projects) await removeProject(request, p.id, p.name);
      await db.prisma.$transaction(async (tx) => {
        await deleteOrganization(tx, organizationId);
        await auditRequest(tx, request, 'organization.deleted', name, { projects: projects.length });
      });
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/members',
    {
      schema: {
        summary: "The organization's members and pending invitations",
        params: OrgParams,
        response: { 200: MemberList, ...ID_ANSWERS },
      },
    },
    async (request) => {
      const asker = askerOf(request);
      const assignable = permittedActions(asker.role).includes('manage-members') ? assignableRoles(asker.role) : [];
      return {
        members: await listMembers(db.prisma, orgOf(request), asker),
        invitations: await pendingInvitations(db.prisma, orgOf(request)),
        assignable,
      };
    },
  );

  app.put<{ Params: { orgId: string; userId: string }; Body: RoleChange }>(
    '/orgs/:orgId/members/:userId',
    {
      schema: {
        summary:
          "Change a member's role (only an owner makes or unmakes owners or changes admins; the last owner stays; one who can no longer make API keys loses those they made)",
        params: MemberParams,
        body: RoleChange,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) =>
      answerMemberChange(request, reply, request.params.userId, request.body.role, (from) => [
        'member.role-changed',
        { from, to: request.body.role },
      ]),
  );

  app.delete<{ Params: { orgId: string; userId: string } }>(
    '/orgs/:orgId/members/:userId',
    {
      schema: {
        summary: 'Remove a member: they lose access at once (their sessions stay open for their other organizations)',
        params: MemberParams,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) => answerMemberChange(request, reply, request.params.userId, null, (from) => ['member.removed', { role: from }]),
  );

  app.delete<{ Params: { orgId: string } }>(
    '/orgs/:orgId/membership',
    {
      schema: {
        summary: 'Leave the organization (the last owner cannot: make someone else owner first)',
        params: OrgParams,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) =>
      answerMemberChange(request, reply, sessionOfRequest(request).userId, null, (from) => ['member.left', { role: from }]),
  );

  app.post<{ Params: { orgId: string; userId: string } }>(
    '/orgs/:orgId/members/:userId/reset-link',
    {
      schema: {
        summary:
          'A single-use password-reset link for a member (good for an hour), to pass on yourself: for servers without mail, or a member locked out. Only for a person whose every organization you administer (an owner there, or an admin where they are below admin)',
        params: MemberParams,
        response: { 200: ResetLink, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      const member = (await listMembers(db.prisma, organizationId, askerOf(request))).find((m) => m.userId === request.params.userId);
      if (!member) return reply.code(404).send(errorBody(404, 'no such member of this organization'));
      const refusal = await resetLinkRefusal(db.prisma, sessionOfRequest(request).userId, member.userId);
      if (refusal) return reply.code(403).send(errorBody(403, refusal));
      const link = await db.prisma.$transaction(async (tx) => {
        const made = await makeLink(tx, member.userId, 'reset');
        await auditRequest(tx, request, 'member.reset-link-made', member.email);
        return made;
      });
      return { link: linkUrl(accounts.linkBase(request), 'reset-password', link.token), expiresAt: link.expiresAt.getTime() };
    },
  );

  app.post<{ Params: { orgId: string }; Body: InvitationCreate }>(
    '/orgs/:orgId/invitations',
    {
      schema: {
        summary:
          'Invite someone by email with a role: the single-use link (good for 7 days) is mailed where this server sends mail, else given in the answer',
        params: OrgParams,
        body: InvitationCreate,
        response: { 201: InvitationCreated, ...ID_ANSWERS, 409: ApiError, 502: ApiError },
      },
    },
    async (request, reply) => {
      const { email, role } = request.body;
      if (!assignableRoles(request.grant!.role!).includes(role))
        return reply.code(403).send(errorBody(403, 'only an owner may invite an owner'));
      const organizationId = orgOf(request);
      if ((await listMembers(db.prisma, organizationId, askerOf(request))).some((m) => emailKey(m.email) === emailKey(email))) {
        return reply.code(409).send(errorBody(409, `${email} is a member already: change their role in the members list`));
      }
      const { name: organizationName } = (await organizationWithProjects(db, organizationId))!;
      const inviter = sessionOfRequest(request);
      const made = await db.prisma.$transaction(async (tx) => {
        const invitation = await invite(tx, organizationId, email, role, inviter.userId);
        await auditRequest(tx, request, 'member.invited', invitation.invitation.email, { role });
        return invitation;
      });
      const link = linkUrl(accounts.linkBase(request), 'invite', made.token);
      if (!accounts.mailer) return reply.code(201).send({ invitation: made.invitation, mailed: false, link });
      try {
        await accounts.mailer({
          to: made.invitation.email,
          subject: `${inviter.name} invited you to ${organizationName} on rtcscope`,
          text: `${inviter.name} (${inviter.email}) invited you to join ${organizationName} on rtcscope as ${role}.\n\nAccept within 7 days:\n${link}\n\nIf you did not expect this, ignore this mail.\n`,
        });
      } catch (err) {
        request.log.warn({ err: { message: (err as Error).message } }, 'invitation: the mail server refused it');
        return reply
          .code(502)
          .send(errorBody(502, 'the invitation was made, but the mail server refused it: check SMTP_URL, or invite again'));
      }
      return reply.code(201).send({ invitation: made.invitation, mailed: true, link: null });
    },
  );

  app.delete<{ Params: { orgId: string; id: number } }>(
    '/orgs/:orgId/invitations/:id',
    { schema: { summary: 'Withdraw a pending invitation: its link stops working', params: OrgIdParams, response: NONE } },
    async (request, reply) => {
      const withdrawn = await db.prisma.$transaction(async (tx) => {
        const email = await revokeInvitation(tx, orgOf(request), request.params.id);
        if (email) await auditRequest(tx, request, 'member.invitation-withdrawn', email);
        return email;
      });
      if (!withdrawn) return reply.code(404).send(errorBody(404, `this organization has no pending invitation ${request.params.id}`));
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { orgId: string }; Body: ProjectCreate }>(
    '/orgs/:orgId/projects',
    {
      schema: {
        summary: 'Make a project in the organization, with its publishable ingest key',
        params: OrgParams,
        body: ProjectCreate,
        response: { 201: ProjectCreated, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      const name = request.body.name.trim();
      const project = await db.prisma.$transaction(async (tx) => {
        const made = await addProject(tx, organizationId, name);
        await audit(tx, requestActor(request), { organizationId, action: 'project.created', projectId: made.id, target: name });
        return made;
      });
      return reply.code(201).send({ project: { id: project.id, name }, ingestKey: project.ingestKey });
    },
  );

  app.delete<{ Params: { orgId: string; projectId: string }; Body: DeleteConfirmation }>(
    '/orgs/:orgId/projects/:projectId',
    {
      schema: {
        summary:
          'Delete a project with all of its data (keys, calls, samples, lab runs, alerts) for good, confirmed by its name; every server stops serving it at once',
        params: ProjectParams,
        body: DeleteConfirmation,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      const { projectId } = request.params;
      const name = await projectNameIn(db, organizationId, projectId);
      if (name === null) return reply.code(404).send(errorBody(404, `this organization has no project ${projectId}`));
      if (name !== request.body.confirm)
        return reply.code(409).send(errorBody(409, `type the project's name, "${name}", to confirm: nothing was deleted`));
      if (!(await removeProject(request, projectId, name)))
        return reply.code(404).send(errorBody(404, `this organization has no project ${projectId}`));
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { orgId: string }; Querystring: AuditQuery }>(
    '/orgs/:orgId/audit',
    {
      schema: {
        summary: "The organization's audit log, newest first, filtered",
        params: OrgParams,
        querystring: AuditQuery,
        response: { 200: AuditList, ...ID_ANSWERS },
      },
    },
    async (request) => readAudit(db.prisma, orgOf(request), request.query),
  );

  app.get<{ Params: { orgId: string } }>(
    '/orgs/:orgId/sso',
    {
      schema: {
        summary:
          "The organization's single sign-on (OpenID Connect), without its client secret, and the redirect URI to register at the provider",
        params: OrgParams,
        response: { 200: SsoConnectionInfo, ...ID_ANSWERS },
      },
    },
    async (request) => accounts.sso.connection(orgOf(request), accounts.ssoRedirectUri(request)),
  );

  app.put<{ Params: { orgId: string }; Body: SsoConnection }>(
    '/orgs/:orgId/sso',
    {
      schema: {
        summary:
          "Set the organization's single sign-on: people of the email domain sign in at the provider; first arrivals get the default role. Saved only once the provider's discovery document is read",
        params: OrgParams,
        body: SsoConnection,
        response: { 200: SsoConnectionInfo, ...ID_ANSWERS, 409: ApiError },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      try {
        await accounts.sso.discover(request.body);
      } catch (err) {
        return reply.code(400).send(errorBody(400, (err as Error).message));
      }
      const outcome = await db.prisma.$transaction(async (tx) => {
        const saved = await accounts.sso.save(tx, organizationId, request.body);
        const { issuer, emailDomain, defaultRole } = request.body;
        if (saved === 'saved') await auditRequest(tx, request, 'sso.configured', emailDomain, { issuer, defaultRole });
        return saved;
      });
      if (outcome === 'taken')
        return reply.code(409).send(errorBody(409, `another organization proved ${request.body.emailDomain} its own and signs it on`));
      return accounts.sso.connection(organizationId, accounts.ssoRedirectUri(request));
    },
  );

  app.post<{ Params: { orgId: string } }>(
    '/orgs/:orgId/sso/verify',
    {
      schema: {
        summary:
          "Prove the connection's email domain is the organization's: the server looks for the TXT record `domainProof` names in DNS; found, the domain's people sign on here. Until then the connection signs nobody on",
        params: OrgParams,
        response: { 200: SsoConnectionInfo, ...ID_ANSWERS, 409: ApiError, 502: ApiError },
      },
    },
    async (request, reply) => {
      const organizationId = orgOf(request);
      let outcome;
      try {
        outcome = await db.prisma.$transaction(async (tx) => {
          const checked = await accounts.sso.verify(tx, organizationId);
          if (checked === 'proved') await auditRequest(tx, request, 'sso.domain-verified', null);
          return checked;
        });
      } catch (err) {
        return reply.code(502).send(errorBody(502, (err as Error).message));
      }
      const info = await accounts.sso.connection(organizationId, accounts.ssoRedirectUri(request));
      if (outcome === 'none') return reply.code(404).send(errorBody(404, 'this organization has no single sign-on to prove a domain for'));
      if (outcome === 'taken')
        return reply.code(409).send(errorBody(409, `another organization proved ${info.connection!.emailDomain} its own first`));
      if (outcome === 'missing') {
        const { record, value } = info.domainProof!;
        return reply
          .code(400)
          .send(
            errorBody(
              400,
              `no TXT record "${value}" at ${record} yet: publish it at your DNS provider, then check again (new records can take some minutes to be seen)`,
            ),
          );
      }
      return info;
    },
  );

  app.delete<{ Params: { orgId: string } }>(
    '/orgs/:orgId/sso',
    {
      schema: {
        summary: "Remove the organization's single sign-on: its people sign in with passwords (or a reset link) from now on",
        params: OrgParams,
        response: NONE,
      },
    },
    async (request, reply) => {
      const removed = await db.prisma.$transaction(async (tx) => {
        const done = await accounts.sso.remove(tx, orgOf(request));
        if (done) await auditRequest(tx, request, 'sso.removed', null);
        return done;
      });
      if (!removed) return reply.code(404).send(errorBody(404, 'this organization has no single sign-on'));
      return reply.code(204).send();
    },
  );

  const ExportQuery = Type.Composite(
    [
      Type.Omit(AuditQuery, ['before', 'limit']),
      Type.Object({ format: Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], { default: 'csv' }) }),
    ],
    {
      additionalProperties: false,
    },
  );
  app.get<{ Params: { orgId: string }; Querystring: AuditQuery & { format: 'csv' | 'jsonl' } }>(
    '/orgs/:orgId/audit/export',
    {
      schema: {
        summary: 'The audit log as a file (CSV or JSON lines), every event the filters match, oldest first',
        params: OrgParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'text/csv or application/x-ndjson',
            content: { 'text/csv': { schema: Type.String() }, 'application/x-ndjson': { schema: Type.String() } },
          },
          ...ID_ANSWERS,
        },
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      const events = [];
      for (let before: number | undefined; ;) {
        const page = await readAudit(db.prisma, orgOf(request), { ...filters, limit: 500, ...(before ? { before } : {}) });
        events.push(...page.events);
        if (page.next === null) break;
        before = page.next;
      }
      events.reverse();
      const body =
        format === 'jsonl'
          ? events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '')
          : toCsvText(
              ['id', 'time (UTC)', 'actor kind', 'actor', 'action', 'project id', 'target', 'detail', 'client address'],
              events.map((e) => [
                e.id,
                new Date(e.at).toISOString(),
                e.actor.kind,
                e.actor.label,
                e.action,
                e.projectId,
                e.target,
                JSON.stringify(e.detail),
                e.ip,
              ]),
            );
      return reply
        .type(format === 'jsonl' ? 'application/x-ndjson' : 'text/csv')
        .header('content-disposition', `attachment; filename="audit-${orgOf(request)}.${format === 'jsonl' ? 'jsonl' : 'csv'}"`)
        .send(body);
    },
  );
}
