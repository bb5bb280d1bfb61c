import { permittedActions } from './policy.js';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'socket.io';
import { projectRole } from '../organizations/organizations.js';
import { sessionOf } from '../accounts/sessions.js';
import { PROJECT_ID } from '../projects/changes.js';
import { sessionToken } from './cookies.js';
import { crossSite } from './same-site.js';

/**
 * The project a dashboard's live socket may watch, as `GET /calls` would allow it: an API key with the
 * read scope (`auth.apiKey`), or a session cookie whose person is at least a viewer of the project it
 * names (`auth.project`), opened by this server's own page (another site's page would carry the
 * person's cookie too). Null: refused. Asked again when a project changes, so a revoked key or
 * session, or a removed member, stops hearing it.
 */
export function dashboardAccess(app: FastifyInstance) {
  return async (handshake: Socket['handshake']): Promise<string | null> => {
    const auth = handshake.auth as { apiKey?: unknown; project?: unknown };
    if (typeof auth.apiKey === 'string') {
      const key = await app.keys.api(auth.apiKey);
      return key?.scopes.includes('read') ? key.projectId : null;
    }
    if (crossSite(handshake.headers, handshake.headers.host)) return null;
    const token = sessionToken(app.parseCookie(handshake.headers.cookie ?? ''));
    if (!token || typeof auth.project !== 'string' || !PROJECT_ID.test(auth.project)) return null;
    const session = await sessionOf(app.db.prisma, token);
    const found = session && (await projectRole(app.db.prisma, session.userId, auth.project));
    return found && permittedActions(found.role).includes('read') ? auth.project : null;
  };
}
