import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalRefusal, type OutboundTargets, REFUSED_TARGET } from '../http/outbound.js';

/** A receiver that has not answered in this long has failed this attempt. */
export const POST_TIMEOUT_MS = 10_000;
/** Of a receiver's answer, only the status matters; the rest is read up to this and dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  /** The address guard refused the target: every attempt would be refused the same way. */
  refused: boolean;
  durationMs: number;
}

/** POSTs a JSON body; never throws: a refusal, a timeout or a broken connection is an error in the result. */
export function postJson(url: string, body: string, headers: Record<string, string>, targets: OutboundTargets): Promise<PostResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null, refused = false): PostResult => ({
    statusCode,
    error,
    refused,
    durationMs: performance.now() - started,
  });
  return new Promise((resolve) => {
    const target = new URL(url);
    const refused = literalRefusal(target, targets);
    if (refused) return resolve(done(null, refused, true));
    const request = (target.protocol === 'https:' ? https : http).request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'rtcscope-webhooks/1',
          ...headers,
        },
        lookup: guardedLookup(targets),
        timeout: POST_TIMEOUT_MS,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('close', () => resolve(done(response.statusCode ?? null, null)));
        response.on('error', () => {});
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${POST_TIMEOUT_MS / 1000} s`)));
    request.on('error', (err: NodeJS.ErrnoException) => resolve(done(null, err.message, err.code === REFUSED_TARGET)));
    request.end(body);
  });
}
