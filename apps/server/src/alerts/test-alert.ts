import type { AlertNotification, AlertRule } from '@rtcscope/protocol';
import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import { inTransaction } from '../db/client.js';
import { storeNotification } from './notify.js';

// Through `pg`, as the evaluator stores a real notification (notify.ts).

/** "Send a test": a notification of the rule marked `test`, to the dashboard and the rule's endpoints, as a real one goes. */
export function sendTest(pool: pg.Pool, projectId: string, rule: AlertRule): Promise<AlertNotification> {
  const now = Date.now();
  return inTransaction(pool, (client) =>
    storeNotification(client, 'test', {
      id: randomUUID(),
      projectId,
      rule: { id: rule.id, name: rule.name, condition: rule.condition },
      callId: null,
      participantId: null,
      summary: `A test of "${rule.name}": nothing is wrong.`,
      value: null,
      startedAt: now,
      resolvedAt: null,
    }),
  );
}
