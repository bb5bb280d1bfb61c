import type { Static } from '@sinclair/typebox';
import type { CallIssueCondition } from '@rtcscope/protocol';
import type { Condition } from './condition.js';

/**
 * A participant of a live call has an open issue of the rule's type: one alert per participant and
 * type while any such issue is open (its audio and its video losing packets are one page, not two),
 * resolved when the last clears. It reads as the worst of them.
 */
export const callIssue: Condition<Static<typeof CallIssueCondition>> = {
  kind: 'call-issue',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; call_db_id: string; call_id: string; participant: string; type: string; severity: string; cause: string }>(
      `SELECT DISTINCT ON (r.id, c.id, i.participant) r.id AS rule_id, c.id AS call_db_id, c.external_id AS call_id, i.participant, i.type, i.severity, i.cause
       FROM alert_rule r
       JOIN call_issue i ON i.project_id = r.project_id AND i.type = r.condition ->> 'issueType' AND i.ended_at IS NULL
       JOIN call c ON c.id = i.call_id AND c.ended_at IS NULL AND c.imported_at IS NULL
       WHERE r.id = ANY($1::uuid[])
       ORDER BY r.id, c.id, i.participant, array_position(ARRAY['critical', 'warning', 'info'], i.severity), i.started_at`,
      [rules.map((r) => r.id)],
    );
    return rows.map((r) => ({
      ruleId: r.rule_id,
      subject: `issue:${r.call_db_id}:${r.participant}`,
      callDbId: r.call_db_id,
      callId: r.call_id,
      participantId: r.participant,
      summary: `${r.type} (${r.severity}) on ${r.participant} in call ${r.call_id}: ${r.cause}`,
      value: null,
    }));
  },
};
