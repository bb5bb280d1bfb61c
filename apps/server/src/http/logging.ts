import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * rtcscope's keys and tokens: ingest (ik_), API (rk_) and agent (at_) keys; sessions (ss_), sign-in
 * links (sl_), password resets (pr_) and invitations (iv_).
 */
const KEY = /\b(ik|rk|at|ss|sl|pr|iv)_[A-Za-z0-9_-]+/g;

/** An OpenID Connect callback's single-use code and state (the query of `/auth/sso/callback`). */
const OIDC_PARAMS = /([?&](?:code|state)=)[^&#]*/g;

/** Text with every rtcscope key in it replaced by its kind, and a sign-on's code and state: a secret put in a URL is not logged. */
export function redactKeys(text: string): string {
  return text.replace(KEY, '$1_[redacted]').replace(OIDC_PARAMS, '$1[redacted]');
}

/** The request as its log lines show it (Fastify's fields), with any key in the URL redacted. */
export function requestLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactKeys(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Requests logged at debug, not info: a line per request belongs to debugging, not to the terminal of a
 * person running the product. A request that failed is still an error.
 */
export class QuietRequests extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
