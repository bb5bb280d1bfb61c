import type { FastifyReply, FastifyRequest } from 'fastify';
import { ABSOLUTE_DAYS } from '../accounts/sessions.js';

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on other sites' requests
 * that change something), and over TLS Secure with the `__Host-` prefix (no subdomain can set or
 * shadow it). The server ends it sooner than the cookie does (idle and absolute expiry, revocation).
 */
const PLAIN = 'rtcscope_session';
const HOST = '__Host-rtcscope_session';

const secure = (request: FastifyRequest) => request.protocol === 'https';

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(secure(request) ? HOST : PLAIN, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(request),
    maxAge: ABSOLUTE_DAYS * 86_400,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(secure(request) ? HOST : PLAIN, { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(request) });
}

/** The session token a request's cookies carry (either name: a deployment may have moved behind TLS). */
export function sessionToken(cookies: Record<string, string | undefined>): string | null {
  return cookies[HOST] ?? cookies[PLAIN] ?? null;
}

/**
 * The state of a single sign-on under way, kept by the browser that started it: the callback must come
 * back to that browser (an attacker cannot finish their own sign-on in someone else's browser).
 */
const SSO = 'rtcscope_sso';
const SSO_PATH = '/api/v1/auth/sso';

export function setSsoCookie(request: FastifyRequest, reply: FastifyReply, state: string): void {
  reply.setCookie(SSO, state, { path: SSO_PATH, httpOnly: true, sameSite: 'lax', secure: secure(request), maxAge: 600 });
}

/** The state the browser kept, which is then forgotten. */
export function takeSsoCookie(request: FastifyRequest, reply: FastifyReply): string | null {
  reply.clearCookie(SSO, { path: SSO_PATH, httpOnly: true, sameSite: 'lax', secure: secure(request) });
  return request.cookies[SSO] ?? null;
}
