import type { Static } from '@sinclair/typebox';
import type { NeverConnectedCondition } from '@rtcscope/protocol';
import { connectedSql } from '../../samples/connected.js';
import type { Condition } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

/**
 * A participant still in a live call that has not connected `afterS` seconds after joining, by the
 * server's clock (from when it first heard of it): a client's clock dated days back does not fire it at once.
 */
export const neverConnected: Condition<Static<typeof NeverConnectedCondition>> = {
  kind: 'never-connected',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; call_db_id: string; call_id: string; participant: string; waited: number }>(
      `SELECT r.id AS rule_id, c.id AS call_db_id, c.external_id AS call_id, p.external_id AS participant,
              extract(epoch FROM now() - p.registered_at)::float8 AS waited
       FROM alert_rule r
       JOIN call c ON c.project_id = r.project_id AND c.ended_at IS NULL AND ${RULE_CALLS}
       JOIN participant p ON p.call_id = c.id AND p.left_at IS NULL AND p.registered_at < now() - make_interval(secs => (r.condition ->> 'afterS')::int)
       WHERE r.id = ANY($1::uuid[]) AND NOT ${connectedSql('p')}`,
      [rules.map((r) => r.id)],
    );
    return rows.map((r) => ({
      ruleId: r.rule_id,
      subject: `participant:${r.call_db_id}:${r.participant}`,
      callDbId: r.call_db_id,
      callId: r.call_id,
      participantId: r.participant,
      summary: `${r.participant} in call ${r.call_id} has not connected ${Math.round(r.waited)} s after joining`,
      value: r.waited,
    }));
  },
};
