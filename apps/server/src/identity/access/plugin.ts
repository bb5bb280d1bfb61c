import type { Role } from '@rtcscope/protocol';
import { roleAtLeast } from '@rtcscope/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { csrfTokenValid, type Session, sessionOf } from '../accounts/sessions.js';
import { projectRole, roleIn } from '../organizations/organizations.js';
import { basicPassword, bearerToken } from '../../http/credentials.js';
import { errorBody } from '../../http/errors.js';
import { PROJECT_ID } from '../projects/changes.js';
import { sessionToken } from './cookies.js';
import { type Access, ACCESS } from './policy.js';
import { type Grant, type Principal, actorOf } from './principal.js';
import { crossSite } from './same-site.js';
import { type Actor, audit } from '../audit/log.js';
import type { Db } from '../../db/database.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request comes from and what it may touch; set for every route but the public ones. */
    grant: Grant | null;
    /** The project a project route acts on (the key's, or the one a person's request names). */
    projectId: string;
  }
}

/** The header a person's requests to project routes name their project in. */
export const PROJECT_HEADER = 'rtcscope-project';
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SECURITY: Record<Access['kind'], Record<string, never[]>[]> = {
  public: [],
  person: [{ session: [] }],
  organization: [{ session: [] }],
  project: [{ apiKey: [] }, { session: [] }],
};

/** The route's entry in the policy: `GET /calls/:callId` for `/api/v1/calls/:callId` (HEAD as GET). */
function accessOf(method: string, url: string, prefix: string): Access | undefined {
  return ACCESS[`${method === 'HEAD' ? 'GET' : method} ${url.slice(prefix.length)}`];
}

/** The audit log's actor for a request allowed past this plugin. */
export function requestActor(request: FastifyRequest): Actor {
  return actorOf(request.grant!.principal, request.ip);
}

/**
 * Records what a request did, in the transaction of its change: in the organization it was let into
 * (and its project, on a project route), as its principal, from its address.
 */
export function auditRequest(
  db: Db,
  request: FastifyRequest,
  action: string,
  target: string | null,
  detail?: Record<string, unknown>,
): Promise<void> {
  return audit(db, requestActor(request), {
    organizationId: request.grant!.organizationId,
    ...(request.projectId ? { projectId: request.projectId } : {}),
    action,
    target,
    ...(detail ? { detail } : {}),
  });
}

/**
 * Every `/api/v1` request is checked here against the route's entry in `policy.ts`, before its body is
 * read: the principal (an API key in `Authorization: Bearer`, else the session cookie), what the route
 * needs of it, and, for a session changing something, its CSRF token (`x-csrf-token`). A public route
 * that changes something refuses requests another site's page started (login CSRF). A refusal changes
 * nothing: no route code runs.
 */
export const apiAccess = fp(async (app: FastifyInstance, { prefix }: { prefix: string }) => {
  app.decorateRequest('grant', null);
  app.decorateRequest('projectId', '');
  const declared = new Set<string>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || !route.url.startsWith(prefix)) continue;
      const access = accessOf(method, route.url, prefix);
      if (!access) throw new Error(`${method} ${route.url} has no entry in access/policy.ts: declare who may call it`);
      declared.add(`${method} ${route.url.slice(prefix.length)}`);
      // The OpenAPI document says who may call it (the schema object is the one the document is built from).
      if (route.schema) Object.assign(route.schema, { security: SECURITY[access.kind] });
    }
  });
  app.addHook('onReady', async () => {
    const unused = Object.keys(ACCESS).filter((route) => !declared.has(route));
    if (unused.length) throw new Error(`access/policy.ts names routes that do not exist: ${unused.join(', ')}`);
  });

  app.addHook('onRequest', async (request, reply) => {
    const access = accessOf(request.method, request.routeOptions.url ?? '', prefix);
    if (!access) return;
    if (access.kind === 'public') {
      if (CHANGES.has(request.method) && crossSite(request.headers, request.host))
        return refuse(reply, 403, 'this request came from another site: send it from the rtcscope page');
      return;
    }
    const principal = await principalOf(app, request);
    if (!principal) return refuse(reply, 401, 'sign in, or send a project API key as "Authorization: Bearer rk_…"');
    if (principal.kind === 'person' && CHANGES.has(request.method) && !csrfTokenValid(principal.session, header(request, 'x-csrf-token'))) {
      return refuse(reply, 403, 'missing or stale CSRF token (x-csrf-token): reload the page and try again');
    }
    if (access.kind === 'person') {
      if (principal.kind !== 'person') return refuse(reply, 403, 'this is for a signed-in person, not an API key');
      request.grant = { principal, organizationId: '', role: null };
      return;
    }
    if (access.kind === 'organization') return organizationRoute(app, request, reply, principal, access.role);
    return projectRoute(app, request, reply, principal, access);
  });
});

async function principalOf(app: FastifyInstance, request: FastifyRequest): Promise<Principal | null> {
  // Basic auth's password for clients that send no other kind (an SFU's event handler).
  const key = bearerToken(request.headers.authorization) ?? basicPassword(request.headers.authorization);
  if (key) {
    const found = await app.keys.api(key);
    return found && { kind: 'key', ...found };
  }
  const token = sessionToken(request.cookies);
  const session = token ? await sessionOf(app.db.prisma, token) : null;
  return session && { kind: 'person', session };
}

async function organizationRoute(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, principal: Principal, need: Role) {
  if (principal.kind !== 'person') return refuse(reply, 403, "an organization's people are managed by its people, not by API keys");
  const { orgId } = request.params as { orgId: string };
  const role = PROJECT_ID.test(orgId) ? await roleIn(app.db.prisma, principal.session.userId, orgId) : null;
  if (!role) return refuse(reply, 404, `you are not a member of an organization ${orgId}`);
  if (!roleAtLeast(role, need)) return refuse(reply, 403, needs(need, role));
  request.grant = { principal, organizationId: orgId, role };
}

async function projectRoute(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  access: Extract<Access, { kind: 'project' }>,
) {
  if (principal.kind === 'key') {
    if (access.scope === null) return refuse(reply, 403, 'no API key may do this: a person with the right role must');
    if (!principal.scopes.includes(access.scope))
      return refuse(reply, 403, `this API key lacks the "${access.scope}" scope: make a key that has it`);
    request.grant = { principal, organizationId: principal.organizationId, role: null };
    request.projectId = principal.projectId;
    return;
  }
  const projectId = header(request, PROJECT_HEADER)?.toLowerCase();
  if (!projectId || !PROJECT_ID.test(projectId)) return refuse(reply, 400, `name the project in the "${PROJECT_HEADER}" header (its id)`);
  const found = await projectRole(app.db.prisma, principal.session.userId, projectId);
  if (!found) return refuse(reply, 404, `none of your organizations has a project ${projectId}`);
  if (!roleAtLeast(found.role, access.role)) return refuse(reply, 403, needs(access.role, found.role));
  request.grant = { principal, organizationId: found.organizationId, role: found.role };
  request.projectId = projectId;
}

const needs = (need: Role, role: Role) => `this needs the ${need} role or above in the organization; yours is ${role}`;

function refuse(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).send(errorBody(status, message));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The session of a request to a route for people (the plugin let no other through). */
export function sessionOfRequest(request: FastifyRequest): Session {
  const principal = request.grant?.principal;
  if (principal?.kind !== 'person') throw new Error('a route for people was reached without a session');
  return principal.session;
}
