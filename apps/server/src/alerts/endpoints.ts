import type { AlertNotification, DeliveryAttempt, WebhookEndpoint, WebhookEndpointInput } from '@rtcscope/protocol';
import type { Db } from '../db/database.js';
import type { WebhookEndpoint as EndpointRow } from '../generated/prisma/client.js';
import { newSecret } from './signature.js';

/** Why an endpoint the schema let through is still refused, or null. */
export function endpointProblem(input: WebhookEndpointInput): string | null {
  const url = URL.canParse(input.url) ? new URL(input.url) : null;
  if (!url?.hostname) return `url ${JSON.stringify(input.url)} is not an http(s) URL with a host`;
  return null;
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  format: r.format as WebhookEndpoint['format'],
  enabled: r.enabled,
  secret: r.secret,
  createdAt: r.createdAt.getTime(),
});

export async function listEndpoints(db: Db, projectId: string): Promise<WebhookEndpoint[]> {
  return (await db.webhookEndpoint.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toEndpoint);
}

/** A new endpoint gets its own signing secret. */
export async function createEndpoint(db: Db, projectId: string, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
  const { url, format, enabled } = input;
  return toEndpoint(await db.webhookEndpoint.create({ data: { projectId, url, format, enabled, secret: newSecret() } }));
}

export async function updateEndpoint(db: Db, projectId: string, id: string, input: WebhookEndpointInput): Promise<WebhookEndpoint | null> {
  const { url, format, enabled } = input;
  const { count } = await db.webhookEndpoint.updateMany({ where: { projectId, id }, data: { url, format, enabled } });
  if (!count) return null;
  return toEndpoint(await db.webhookEndpoint.findUniqueOrThrow({ where: { id } }));
}

/** Deletes the endpoint with its pending deliveries and its log. */
export async function deleteEndpoint(db: Db, projectId: string, id: string): Promise<boolean> {
  return (await db.webhookEndpoint.deleteMany({ where: { projectId, id } })).count === 1;
}

/** The endpoint's delivery log, newest attempt first; null: no such endpoint in the project. */
export async function deliveryLog(db: Db, projectId: string, id: string, limit: number): Promise<DeliveryAttempt[] | null> {
  if (!(await db.webhookEndpoint.count({ where: { projectId, id } }))) return null;
  const attempts = await db.webhookAttempt.findMany({
    where: { projectId, endpointId: id },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit,
    include: { delivery: { select: { notificationId: true, state: true, notification: { select: { payload: true } } } } },
  });
  return attempts.map((a) => {
    const sent = a.delivery.notification.payload as Pick<AlertNotification, 'state' | 'rule' | 'alert'>;
    return {
      notificationId: a.delivery.notificationId,
      state: sent.state,
      rule: sent.rule.name,
      callId: sent.alert.callId,
      participantId: sent.alert.participantId,
      attempt: a.attempt,
      at: a.at.getTime(),
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      delivery: a.delivery.state as DeliveryAttempt['delivery'],
    };
  });
}
