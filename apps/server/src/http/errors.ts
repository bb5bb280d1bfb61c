import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { databaseUnavailable } from '../db/availability.js';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

/** The body of every error answer: the status, its name, and what was wrong or what to do. */
export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

/** The answer to a call id the project does not have: the same from every concern that reads calls. */
export const CALL_NOT_FOUND = errorBody(404, 'no such call in this project');

/**
 * Every error a route throws is answered here. A refused request (4xx) is told what was wrong with it.
 * A failure of the server says nothing of its inside (no source path, query or database code): it is
 * logged under the request's id, which the answer gives so the operator can find it. A database that
 * cannot be reached is a 503 to try again, not a 500.
 */
export const errorAnswers = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send(errorBody(status, err.message));
    if (databaseUnavailable(err)) {
      request.log.warn({ err: { message: err.message } }, 'the database is unavailable');
      return reply
        .code(503)
        .header('retry-after', '5')
        .send(errorBody(503, 'the database is unavailable just now: try again in a few seconds'));
    }
    request.log.error({ err }, 'request failed');
    return reply
      .code(500)
      .send(
        errorBody(
          500,
          `the server failed to answer this request (reference ${request.id}): try again, or give the operator this reference`,
        ),
      );
  });
});

/**
 * Errors met before a route is found (Fastify's `frameworkErrors`): a path that is not valid URL
 * encoding, or a path parameter longer than any id (414).
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = err.statusCode ?? 400;
  const message =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is longer than any id can be' : 'the path is not valid URL encoding';
  void reply.code(status).send(errorBody(status, message));
}
