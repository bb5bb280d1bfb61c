import type { FastifyRequest } from 'fastify';

/** rtcscope's keys and tokens: ingest (ik_), API (rk_) and agent (at_). */
const KEY = /\b(ik|rk|at)_[A-Za-z0-9_-]+/g;

/** Text with every rtcscope key in it replaced by its kind: a key someone put in a URL is not logged. */
export function redactKeys(text: string): string {
  return text.replace(KEY, '$1_[redacted]');
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
