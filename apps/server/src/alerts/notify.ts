import type { AlertCondition, AlertNotification, NotificationState } from '@rtcscope/protocol';
import type pg from 'pg';
import type { Db } from '../db/database.js';
import { randomUUID } from 'node:crypto';

// Notifications are stored through `pg`, in the evaluator's transaction (evaluate.ts); read through Prisma Client.

export interface AlertRow {
  id: string;
  projectId: string;
  rule: { id: string; name: string; condition: AlertCondition };
  callId: string | null;
  participantId: string | null;
  summary: string;
  value: number | null;
  startedAt: number;
  resolvedAt: number | null;
}

/**
 * Stores a notification and, in the same transaction (`client`), one outbox row per enabled endpoint of
 * its project that its rule sends to (all, unless it names some): once committed it is delivered
 * whatever happens to this node.
 */
export async function storeNotification(client: pg.ClientBase, state: NotificationState, alert: AlertRow): Promise<AlertNotification> {
  const notification: AlertNotification = {
    id: randomUUID(),
    state,
    at: Date.now(),
    rule: alert.rule,
    alert: {
      id: alert.id,
      startedAt: alert.startedAt,
      resolvedAt: alert.resolvedAt,
      callId: alert.callId,
      participantId: alert.participantId,
      summary: alert.summary,
      value: alert.value,
    },
  };
  await client.query(
    'INSERT INTO notification (id, project_id, created_at, payload) VALUES ($1, $2, to_timestamp($3::float8 / 1000.0), $4)',
    [notification.id, alert.projectId, notification.at, notification],
  );
  await client.query(
    `INSERT INTO webhook_delivery (project_id, notification_id, endpoint_id)
     SELECT e.project_id, $2, e.id FROM webhook_endpoint e LEFT JOIN alert_rule r ON r.id = $3
     WHERE e.project_id = $1 AND e.enabled AND (r.every_endpoint OR e.id = ANY(r.endpoint_ids))`,
    [alert.projectId, notification.id, alert.rule.id],
  );
  return notification;
}

/** The project's notifications, newest first. */
export async function listNotifications(
  db: Db,
  projectId: string,
  before: number | undefined,
  limit: number,
): Promise<AlertNotification[]> {
  const rows = await db.notification.findMany({
    where: { projectId, ...(before === undefined ? {} : { createdAt: { lt: new Date(before) } }) },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: limit,
    select: { payload: true },
  });
  return rows.map((r) => r.payload as unknown as AlertNotification);
}

/** Notifications are kept this long (their deliveries and attempts with them). */
export const NOTIFICATIONS_KEPT_DAYS = 30;

export async function pruneNotifications(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(`DELETE FROM notification WHERE created_at < now() - make_interval(days => $1)`, [
    NOTIFICATIONS_KEPT_DAYS,
  ]);
  return rowCount ?? 0;
}
