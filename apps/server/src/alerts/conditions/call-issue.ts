import type { Static } from '@sinclair/typebox';
import type { CallIssueCondition } from '@rtcscope/protocol';
import type { Condition } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

const subjectOf = (callDbId: string, participant: string) => `issue:${callDbId}:${participant}`;

/**
 * A participant of a live call has an open issue of the rule's type: one alert per participant and
 * type while any such issue is open (its audio and its video losing packets are one page, not two),
 * resolved when the last clears. It reads as the worst of them. An issue that follows from another's
 * (a receiver's loss from its sender's congested uplink) is that cause's alert: one page for the
 * sender, saying first what the rule is about (what its receivers suffer), then the cause it follows from; an alert that fired for the receiver before the link was
 * known is carried on under the cause.
 */
export const callIssue: Condition<Static<typeof CallIssueCondition>> = {
  kind: 'call-issue',
  async firing(pool, rules) {
    const { rows } = await pool.query<{
      rule_id: string;
      call_db_id: string;
      call_id: string;
      subject_participant: string;
      participant: string;
      type: string;
      severity: string;
      cause: string;
      cause_type: string | null;
      cause_severity: string | null;
      cause_cause: string | null;
      sufferers: string[];
    }>(
      `SELECT DISTINCT ON (r.id, c.id, coalesce(k.participant, i.participant)) r.id AS rule_id, c.id AS call_db_id, c.external_id AS call_id,
         coalesce(k.participant, i.participant) AS subject_participant, i.participant, i.type, i.severity, i.cause,
         k.type AS cause_type, k.severity AS cause_severity, k.cause AS cause_cause,
         array_agg(i.participant) OVER (PARTITION BY r.id, c.id, coalesce(k.participant, i.participant)) AS sufferers
       FROM alert_rule r
       JOIN call_issue i ON i.project_id = r.project_id AND i.type = r.condition ->> 'issueType' AND i.ended_at IS NULL
       JOIN call c ON c.id = i.call_id AND c.ended_at IS NULL AND ${RULE_CALLS}
       LEFT JOIN call_issue k ON k.id = i.caused_by
       WHERE r.id = ANY($1::uuid[])
       ORDER BY r.id, c.id, coalesce(k.participant, i.participant), array_position(ARRAY['critical', 'warning', 'info'], i.severity), i.started_at`,
      [rules.map((r) => r.id)],
    );
    return rows.map((r) => ({
      ruleId: r.rule_id,
      subject: subjectOf(r.call_db_id, r.subject_participant),
      callDbId: r.call_db_id,
      callId: r.call_id,
      participantId: r.subject_participant,
      summary:
        r.cause_type === null
          ? `${r.type} (${r.severity}) on ${r.participant} in call ${r.call_id}: ${r.cause}`
          : `${r.type} (${r.severity}) on ${r.participant} in call ${r.call_id}: ${r.cause}; it follows from ${r.cause_type} (${r.cause_severity}) on ${r.subject_participant}: ${r.cause_cause}`,
      value: null,
      ...(r.cause_type === null
        ? {}
        : { formerly: [...new Set(r.sufferers)].filter((p) => p !== r.subject_participant).map((p) => subjectOf(r.call_db_id, p)) }),
    }));
  },
};
