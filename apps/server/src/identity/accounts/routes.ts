import {
  ApiError,
  InvitationAccept,
  InvitationPreview,
  LinkSignIn,
  Me,
  OrganizationCreate,
  PasswordChange,
  PasswordReset,
  PasswordResetRequest,
  SessionList,
  SignIn,
  SignUp,
  SsoStart,
} from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { emailKey } from './emails.js';
import { invitationOf, markAccepted, preview } from './invitations.js';
import { linkUrl, makeLink, redeemLink } from './links.js';
import { addMember, createOrganization, organizationIdsOf, organizationsOf } from '../organizations/organizations.js';
import { hashPassword, passwordMatches } from './passwords.js';
import {
  csrfToken,
  listSessions,
  openSession,
  revokeSession,
  revokeSessionByToken,
  revokeSessionsOf,
  type SessionMethod,
  sessionOf,
} from './sessions.js';
import { createUser, setPassword, userByEmail, userById } from './users.js';
import { clearSessionCookie, sessionToken, setSessionCookie, setSsoCookie, takeSsoCookie } from '../access/cookies.js';
import { requestActor, sessionOfRequest } from '../access/plugin.js';
import { type Actor, audit } from '../audit/log.js';
import type { Db } from '../../db/database.js';
import { errorBody } from '../../http/errors.js';
import { ANSWERS, ID_ANSWERS, IdParams } from '../../http/schemas.js';

const NONE = { 204: Type.Null(), ...ANSWERS };

/**
 * People's own account: signing up and in (password, the start command's one-time link, an invitation,
 * a password reset), out, their sessions and password, and making an organization. Every sign-in opens
 * a new session and ends the one the browser had (no session fixation).
 */
/** Where a failed single sign-on's reason waits for the sign-in page (which reads and clears it). */
export const SSO_ERROR_COOKIE = 'rtcscope_sso_error';

export async function accountRoutes(app: FastifyInstance) {
  const { db, accounts } = app;

  /** Opens a session in the caller's transaction, records the sign-in in each of the person's organizations, sets the cookie. */
  const signIn = async (
    tx: Db,
    request: FastifyRequest,
    reply: FastifyReply,
    user: { id: string; email: string },
    method: SessionMethod,
  ) => {
    const old = sessionToken(request.cookies);
    if (old) await revokeSessionByToken(tx, old);
    const token = await openSession(tx, user.id, method, { ip: request.ip, userAgent: request.headers['user-agent'] });
    await auditEverywhere(tx, user.id, { kind: 'user', id: user.id, label: user.email, ip: request.ip }, 'session.signed-in', {
      method,
    });
    setSessionCookie(request, reply, token);
  };
  const tooMany = (reply: FastifyReply, wait: number, what: string) =>
    reply
      .code(429)
      .header('retry-after', String(wait))
      .send(errorBody(429, `too many ${what}: try again in ${Math.ceil(wait / 60)} minute(s)`));

  app.post<{ Body: SignUp }>(
    '/auth/sign-up',
    {
      schema: {
        summary: 'Make an account and an organization of which it is the owner; signs in',
        body: SignUp,
        response: { ...NONE, 409: ApiError },
      },
    },
    async (request, reply) => {
      const wait = await accounts.limits.request(request.ip);
      if (wait) return tooMany(reply, wait, 'sign-ups from this address');
      const { email, password, name, organization } = request.body;
      const passwordHash = await hashPassword(password);
      const made = await db.prisma.$transaction(async (tx) => {
        const user = await createUser(tx, { email, name, passwordHash });
        if (!user) return false;
        const organizationId = await createOrganization(tx, organization, user.id);
        await audit(
          tx,
          { kind: 'user', id: user.id, label: user.email, ip: request.ip },
          { organizationId, action: 'organization.created', target: organization.trim() },
        );
        await signIn(tx, request, reply, user, 'sign-up');
        return true;
      });
      if (!made) return reply.code(409).send(errorBody(409, 'an account with this email address exists: sign in, or reset its password'));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: SignIn }>(
    '/auth/sign-in',
    { schema: { summary: 'Sign in with email and password; sets the session cookie', body: SignIn, response: NONE } },
    async (request, reply) => {
      const account = emailKey(request.body.email);
      const wait = await accounts.limits.signInWait(account, request.ip);
      if (wait) return tooMany(reply, wait, 'failed sign-ins');
      const user = await userByEmail(db.prisma, account);
      if (!(await passwordMatches(user?.passwordHash ?? null, request.body.password))) {
        await accounts.limits.signInFailed(account, request.ip);
        return reply.code(401).send(errorBody(401, 'wrong email or password'));
      }
      await accounts.limits.signedIn(account, request.ip);
      await db.prisma.$transaction((tx) => signIn(tx, request, reply, user!, 'password'));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: LinkSignIn }>(
    '/auth/link',
    {
      schema: {
        summary: "Sign in with a single-use sign-in link's token (the start command prints one)",
        body: LinkSignIn,
        response: NONE,
      },
    },
    async (request, reply) => {
      const ok = await db.prisma.$transaction(async (tx) => {
        const userId = await redeemLink(tx, request.body.token, 'sign-in');
        const user = userId && (await userById(tx, userId));
        if (!user) return false;
        await signIn(tx, request, reply, user, 'link');
        return true;
      });
      if (!ok)
        return reply
          .code(401)
          .send(errorBody(401, 'this sign-in link was used already or has expired: start the server again for a new one'));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: PasswordResetRequest }>(
    '/auth/password-reset/request',
    {
      schema: {
        summary:
          'Mail a single-use password-reset link (good for an hour) to the address, if it has an account; the answer is the same either way',
        body: PasswordResetRequest,
        response: { 202: Type.Null(), ...ANSWERS },
      },
    },
    async (request, reply) => {
      const { mailer, publicUrl } = accounts;
      if (!mailer || !publicUrl) {
        return reply
          .code(400)
          .send(errorBody(400, 'this server sends no mail: ask an admin of your organization for a password-reset link'));
      }
      const wait = await accounts.limits.request(request.ip);
      if (wait) return tooMany(reply, wait, 'password-reset requests from this address');
      const user = await userByEmail(db.prisma, request.body.email);
      if (user) {
        const { token } = await makeLink(db.prisma, user.id, 'reset');
        await mailer({
          to: user.email,
          subject: 'Reset your rtcscope password',
          text: `Someone (we hope you) asked to reset the password of your rtcscope account.\n\nSet a new one here within an hour:\n${linkUrl(publicUrl, 'reset-password', token)}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
        });
      }
      return reply.code(202).send();
    },
  );

  app.post<{ Body: PasswordReset }>(
    '/auth/password-reset',
    {
      schema: {
        summary: "Set a new password with a reset link's token; ends every other session of the account and signs in",
        body: PasswordReset,
        response: NONE,
      },
    },
    async (request, reply) => {
      const passwordHash = await hashPassword(request.body.password);
      const ok = await db.prisma.$transaction(async (tx) => {
        const userId = await redeemLink(tx, request.body.token, 'reset');
        const user = userId && (await userById(tx, userId));
        if (!user) return false;
        await setPassword(tx, user.id, passwordHash);
        await revokeSessionsOf(tx, user.id);
        await auditEverywhere(tx, user.id, { kind: 'user', id: user.id, label: user.email, ip: request.ip }, 'password.reset');
        await signIn(tx, request, reply, user, 'reset');
        return user;
      });
      if (!ok) return reply.code(401).send(errorBody(401, 'this reset link was used already or has expired: ask for a new one'));
      // The person proved they hold the account: guesses made against it are forgiven.
      await accounts.limits.signedIn(emailKey(ok.email), request.ip);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: LinkSignIn }>(
    '/auth/invitations/preview',
    {
      schema: {
        summary: 'What an invitation link opens: the organization, the address and the role',
        body: LinkSignIn,
        response: { 200: InvitationPreview, ...ANSWERS, 404: ApiError },
      },
    },
    async (request, reply) => {
      const invitation = await invitationOf(db.prisma, request.body.token);
      if (!invitation)
        return reply.code(404).send(errorBody(404, 'this invitation was used already, withdrawn, or has expired: ask for a new one'));
      return preview(invitation, (await userByEmail(db.prisma, invitation.email)) !== null);
    },
  );

  app.post<{ Body: InvitationAccept }>(
    '/auth/invitations/accept',
    {
      schema: {
        summary:
          "Accept an invitation: a new account (name and password) or the existing one's password; joins the organization and signs in",
        body: InvitationAccept,
        response: { ...NONE, 404: ApiError },
      },
    },
    async (request, reply) => {
      const { token, name, password } = request.body;
      const outcome = await db.prisma.$transaction(async (tx) => {
        const invitation = await invitationOf(tx, token, true);
        if (!invitation) return 'gone' as const;
        let user = await userByEmail(tx, invitation.email);
        if (user) {
          const current = sessionToken(request.cookies);
          const session = current ? await sessionOf(db.prisma, current) : null;
          if (session?.userId !== user.id) {
            // A password checked here is a sign-in, limited as one: an invitation must not open a way to guess it.
            const account = emailKey(user.email);
            const wait = await accounts.limits.signInWait(account, request.ip);
            if (wait) return { wait };
            if (password === undefined || !(await passwordMatches(user.passwordHash, password))) {
              await accounts.limits.signInFailed(account, request.ip);
              return 'not-yours' as const;
            }
            await accounts.limits.signedIn(account, request.ip);
          }
        } else {
          if (!name || !password) return 'incomplete' as const;
          user = await createUser(tx, { email: invitation.email, name, passwordHash: await hashPassword(password) });
          if (!user) return 'gone' as const;
        }
        await addMember(tx, invitation.organizationId, user.id, invitation.role);
        await markAccepted(tx, invitation.id);
        const actor: Actor = { kind: 'user', id: user.id, label: user.email, ip: request.ip };
        await audit(tx, actor, {
          organizationId: invitation.organizationId,
          action: 'member.joined',
          target: user.email,
          detail: { role: invitation.role },
        });
        await signIn(tx, request, reply, user, 'invitation');
        return 'joined' as const;
      });
      if (typeof outcome === 'object') return tooMany(reply, outcome.wait, 'failed sign-ins');
      if (outcome === 'gone')
        return reply.code(404).send(errorBody(404, 'this invitation was used already, withdrawn, or has expired: ask for a new one'));
      if (outcome === 'not-yours')
        return reply.code(401).send(errorBody(401, 'this address has an account: give its password (or sign in first) to join'));
      if (outcome === 'incomplete')
        return reply.code(400).send(errorBody(400, 'give your name and a password (at least 10 characters) to make your account'));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: SsoStart }>(
    '/auth/sso/start',
    {
      schema: {
        summary:
          "Start signing in through the single sign-on of the organization that owns the email's domain: the answer is where to send the browser",
        body: SsoStart,
        response: { 200: Type.Object({ url: Type.String() }), ...ANSWERS, 404: ApiError, 502: ApiError },
      },
    },
    async (request, reply) => {
      const wait = await accounts.limits.request(request.ip);
      if (wait) return tooMany(reply, wait, 'sign-on requests from this address');
      let started: { url: string; state: string } | null;
      try {
        started = await accounts.sso.start(request.body.email, accounts.ssoRedirectUri(request));
      } catch (err) {
        return reply.code(502).send(errorBody(502, `${(err as Error).message}; meanwhile, sign in with your password`));
      }
      if (!started)
        return reply
          .code(404)
          .send(errorBody(404, 'no organization signs this email domain on with single sign-on: sign in with your password'));
      setSsoCookie(request, reply, started.state);
      return { url: started.url };
    },
  );

  const SsoCallback = Type.Object(
    // Providers' codes run to a few hundred characters (Microsoft's past a thousand); ours are 43.
    {
      state: Type.Optional(Type.String({ maxLength: 256 })),
      code: Type.Optional(Type.String({ maxLength: 2048 })),
      error: Type.Optional(Type.String({ maxLength: 256 })),
    },
    { additionalProperties: true },
  );
  app.get<{ Querystring: { state?: string; code?: string; error?: string } }>(
    '/auth/sso/callback',
    {
      schema: {
        summary:
          'Where the identity provider sends the browser back: signs in (the person made and added on first arrival), then sends it to the dashboard, or to the sign-in page saying what went wrong',
        querystring: SsoCallback,
        response: { 302: Type.Null(), ...ANSWERS },
      },
    },
    async (request, reply) => {
      const kept = takeSsoCookie(request, reply);
      // Why, in a short-lived cookie only this server sets, not in the address: a link could put any
      // words on the sign-in page through that.
      const failed = (message: string) =>
        reply.setCookie(SSO_ERROR_COOKIE, message, { path: '/sign-in', maxAge: 60, sameSite: 'lax' }).redirect('/sign-in?sso_error=1');
      const { state, error } = request.query;
      if (error) return failed(`the identity provider refused the sign-on (${error})`);
      if (!state || !kept || kept !== state) return failed('this sign-on was started in another browser, or long ago: start it again here');
      const query = request.url.slice(request.url.indexOf('?'));
      try {
        await db.prisma.$transaction(async (tx) => {
          const { user, organizationId, joined } = await accounts.sso.finish(
            tx,
            new URL(`${accounts.ssoRedirectUri(request)}${query}`),
            state,
          );
          if (joined) {
            const actor: Actor = { kind: 'user', id: user.id, label: user.email, ip: request.ip };
            await audit(tx, actor, {
              organizationId,
              action: 'member.joined',
              target: user.email,
              detail: { role: joined, through: 'sso' },
            });
          }
          await signIn(tx, request, reply, user, 'sso');
        });
      } catch (err) {
        return failed((err as Error).message);
      }
      return reply.redirect('/');
    },
  );

  app.get(
    '/auth/me',
    { schema: { summary: 'The signed-in person, their organizations and projects, and a CSRF token', response: { 200: Me, ...ANSWERS } } },
    async (request) => {
      const session = sessionOfRequest(request);
      const user = (await userById(db.prisma, session.userId))!;
      return {
        user: { id: user.id, email: user.email, name: user.name, hasPassword: user.passwordHash !== null },
        organizations: await organizationsOf(db.prisma, user.id),
        csrfToken: csrfToken(session),
      };
    },
  );

  app.post(
    '/auth/sign-out',
    { schema: { summary: 'End this session (on every server at once)', response: NONE } },
    async (request, reply) => {
      const session = sessionOfRequest(request);
      await revokeSession(db.prisma, session.userId, session.id);
      clearSessionCookie(request, reply);
      return reply.code(204).send();
    },
  );

  app.get(
    '/account/sessions',
    { schema: { summary: "Where you are signed in: this account's open sessions", response: { 200: SessionList, ...ANSWERS } } },
    async (request) => {
      const session = sessionOfRequest(request);
      return { sessions: await listSessions(db.prisma, session.userId, session.id) };
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/account/sessions/:id',
    {
      schema: {
        summary: 'End one of your sessions (a browser you left signed in)',
        params: IdParams,
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      const session = sessionOfRequest(request);
      if (!(await revokeSession(db.prisma, session.userId, request.params.id)))
        return reply.code(404).send(errorBody(404, `you have no open session ${request.params.id}`));
      return reply.code(204).send();
    },
  );

  app.post<{ Body: PasswordChange }>(
    '/account/password',
    {
      schema: {
        summary: 'Change your password (or set one, after single sign-on); ends your other sessions',
        body: PasswordChange,
        response: NONE,
      },
    },
    async (request, reply) => {
      const session = sessionOfRequest(request);
      const account = emailKey(session.email);
      const wait = await accounts.limits.signInWait(account, request.ip);
      if (wait) return tooMany(reply, wait, 'failed password checks');
      const user = (await userById(db.prisma, session.userId))!;
      if (user.passwordHash !== null && !(await passwordMatches(user.passwordHash, request.body.current))) {
        await accounts.limits.signInFailed(account, request.ip);
        return reply.code(403).send(errorBody(403, 'your current password is not that'));
      }
      const passwordHash = await hashPassword(request.body.password);
      await db.prisma.$transaction(async (tx) => {
        await setPassword(tx, user.id, passwordHash);
        await revokeSessionsOf(tx, user.id, session.id);
        await auditEverywhere(tx, user.id, requestActor(request), 'password.changed');
      });
      return reply.code(204).send();
    },
  );

  app.post<{ Body: OrganizationCreate }>(
    '/orgs',
    {
      schema: {
        summary: 'Make an organization of which you are the owner',
        body: OrganizationCreate,
        response: { 201: Type.Object({ id: Type.String() }), ...ANSWERS },
      },
    },
    async (request, reply) => {
      const session = sessionOfRequest(request);
      const id = await db.prisma.$transaction(async (tx) => {
        const organizationId = await createOrganization(tx, request.body.name, session.userId);
        await audit(tx, requestActor(request), { organizationId, action: 'organization.created', target: request.body.name.trim() });
        return organizationId;
      });
      return reply.code(201).send({ id });
    },
  );
}

/** Records something that happened to a person in every organization they belong to. */
async function auditEverywhere(tx: Db, userId: string, actor: Actor, action: string, detail?: Record<string, unknown>): Promise<void> {
  for (const organizationId of await organizationIdsOf(tx, userId))
    await audit(tx, actor, { organizationId, action, ...(detail ? { detail } : {}) });
}
