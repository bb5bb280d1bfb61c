import type { AlertNotification } from '@rtcscope/protocol';
import type pg from 'pg';
import { lostToDeletion } from '../db/client.js';
import { deliveryBody } from './body.js';
import type { OutboundTargets } from '../http/outbound.js';
import { postJson, POST_TIMEOUT_MS } from './post.js';
import { signatureHeaders } from './signature.js';

// SQL through `pg`: deliveries are claimed with `FOR UPDATE SKIP LOCKED`, so nodes share the outbox.

/** A claimed delivery is another node's again after this (its node died mid-post): longer than a post may take. */
const LEASE_MS = POST_TIMEOUT_MS + 5000;
/** Deliveries are retried for this long after their notification, then given up. */
export const RETRY_FOR_MS = 24 * 3600_000;

/** The wait before attempt `attempt + 1`: 5 s doubling to an hour, ±10 % so receivers coming back are not hit at once. */
export function retryDelayMs(attempt: number, random = Math.random()): number {
  const base = Math.min(5000 * 2 ** (attempt - 1), 3600_000);
  return Math.round(base * (0.9 + 0.2 * random));
}

interface Claimed {
  id: string;
  project_id: string;
  endpoint_id: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret: string;
  format: 'json' | 'slack';
  enabled: boolean;
  payload: AlertNotification;
}

/**
 * Claims up to `limit` deliveries that are due (leased, so no other node takes them meanwhile), posts
 * each, records the attempt and marks it delivered (a 2xx), to retry later, or failed after 24 hours.
 * Returns how many were attempted.
 */
export async function deliverDue(pool: pg.Pool, limit: number, targets: OutboundTargets): Promise<number> {
  const { rows } = await pool.query<Claimed>(
    `WITH due AS (
       SELECT id FROM webhook_delivery
       WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_delivery d SET lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
       FROM due WHERE d.id = due.id RETURNING d.*
     )
     SELECT c.id, c.project_id, c.endpoint_id, c.attempts, c.created_at, e.url, e.secret, e.format, e.enabled, n.payload
     FROM claimed c JOIN webhook_endpoint e ON e.id = c.endpoint_id JOIN notification n ON n.id = c.notification_id`,
    [limit, LEASE_MS / 1000],
  );
  const failed = (await Promise.allSettled(rows.map((d) => attempt(pool, d, targets)))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return rows.length;
}

async function attempt(pool: pg.Pool, d: Claimed, targets: OutboundTargets): Promise<void> {
  const body = deliveryBody(d.format, d.payload);
  const result = d.enabled
    ? await postJson(d.url, body, signatureHeaders(d.secret, d.payload.id, body, new Date()), targets)
    : { statusCode: null, error: 'the endpoint is disabled', refused: true, durationMs: 0 };
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  // One draw of the spread: the next attempt is given up on for the same delay it is scheduled with.
  const delayMs = retryDelayMs(d.attempts);
  // A disabled endpoint, or one the address guard refuses, refuses every attempt alike: it is given up at once.
  const givenUp = !delivered && (result.refused || Date.now() + delayMs - d.created_at.getTime() > RETRY_FOR_MS);
  const error = result.error ?? (delivered ? null : `the receiver answered ${result.statusCode}`);
  // Its endpoint or project deleted meanwhile, the delivery is gone (or goes) and nothing is written.
  await pool
    .query(
      `WITH attempt AS (
       INSERT INTO webhook_attempt (project_id, delivery_id, endpoint_id, attempt, status_code, duration_ms, error)
       SELECT $1, id, $3, $4, $5, $6, $7 FROM webhook_delivery WHERE id = $2
     )
     UPDATE webhook_delivery SET state = $8, lease_until = NULL, next_attempt_at = now() + make_interval(secs => $9) WHERE id = $2`,
      [
        d.project_id,
        d.id,
        d.endpoint_id,
        d.attempts,
        result.statusCode,
        result.durationMs,
        error,
        delivered ? 'delivered' : givenUp ? 'failed' : 'pending',
        delayMs / 1000,
      ],
    )
    .catch((err: unknown) => {
      if (!lostToDeletion(err)) throw err;
    });
}
