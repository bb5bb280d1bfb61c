import type { DeliveryAttempt, NotificationState, WebhookEndpoint, WebhookEndpointInput } from '@rtcscope/protocol';
import type pg from 'pg';
import { newSecret } from './signature.js';

/** Why an endpoint the schema let through is still refused, or null. */
export function endpointProblem(input: WebhookEndpointInput): string | null {
  const url = URL.canParse(input.url) ? new URL(input.url) : null;
  if (!url?.hostname) return `url ${JSON.stringify(input.url)} is not an http(s) URL with a host`;
  return null;
}

interface EndpointRow {
  id: string;
  url: string;
  format: 'json' | 'slack';
  enabled: boolean;
  secret: string;
  created_at: Date;
}
const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  format: r.format,
  enabled: r.enabled,
  secret: r.secret,
  createdAt: r.created_at.getTime(),
});
const COLUMNS = 'id, url, format, enabled, secret, created_at';

export async function listEndpoints(pool: pg.Pool, projectId: string): Promise<WebhookEndpoint[]> {
  const { rows } = await pool.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoint WHERE project_id = $1 ORDER BY created_at, id`, [
    projectId,
  ]);
  return rows.map(toEndpoint);
}

/** A new endpoint gets its own signing secret. */
export async function createEndpoint(
  pool: pg.Pool | pg.ClientBase,
  projectId: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpoint> {
  const { rows } = await pool.query<EndpointRow>(
    `INSERT INTO webhook_endpoint (project_id, url, format, enabled, secret) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [projectId, input.url, input.format, input.enabled, newSecret()],
  );
  return toEndpoint(rows[0]!);
}

export async function updateEndpoint(
  pool: pg.Pool | pg.ClientBase,
  projectId: string,
  id: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpoint | null> {
  const { rows } = await pool.query<EndpointRow>(
    `UPDATE webhook_endpoint SET url = $3, format = $4, enabled = $5 WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id, input.url, input.format, input.enabled],
  );
  return rows[0] ? toEndpoint(rows[0]) : null;
}

/** Deletes the endpoint with its pending deliveries and its log. */
export async function deleteEndpoint(pool: pg.Pool | pg.ClientBase, projectId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM webhook_endpoint WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rowCount === 1;
}

/** The endpoint's delivery log, newest attempt first; null: no such endpoint in the project. */
export async function deliveryLog(pool: pg.Pool, projectId: string, id: string, limit: number): Promise<DeliveryAttempt[] | null> {
  const { rows: found } = await pool.query('SELECT 1 FROM webhook_endpoint WHERE project_id = $1 AND id = $2', [projectId, id]);
  if (!found[0]) return null;
  const { rows } = await pool.query<{
    notification_id: string;
    state: NotificationState;
    attempt: number;
    at: Date;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    delivery: DeliveryAttempt['delivery'];
  }>(
    `SELECT d.notification_id, n.payload ->> 'state' AS state, a.attempt, a.at, a.status_code, a.duration_ms, a.error, d.state AS delivery
     FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id JOIN notification n ON n.id = d.notification_id
     WHERE a.project_id = $1 AND a.endpoint_id = $2 ORDER BY a.at DESC, a.id DESC LIMIT $3`,
    [projectId, id, limit],
  );
  return rows.map((r) => ({
    notificationId: r.notification_id,
    state: r.state,
    attempt: r.attempt,
    at: r.at.getTime(),
    statusCode: r.status_code,
    durationMs: r.duration_ms,
    error: r.error,
    delivery: r.delivery,
  }));
}
