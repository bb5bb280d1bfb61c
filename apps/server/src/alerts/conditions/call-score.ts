import type { Static } from '@sinclair/typebox';
import { SCORE_WINDOW_MS } from '@rtcscope/diagnosis';
import type { CallScoreCondition } from '@rtcscope/protocol';
import type { Condition } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

/**
 * A participant of a live call scored under the rule's score in every window of the last `forS` seconds
 * of its call (its score in a window: what it saw and heard, as on the call page).
 */
export const callScore: Condition<Static<typeof CallScoreCondition>> = {
  kind: 'call-score',
  async firing(pool, rules) {
    const { rows } = await pool.query<{
      rule_id: string;
      call_db_id: string;
      call_id: string;
      participant: string;
      windows: number;
      best: number;
      mean: number;
    }>(
      `WITH live AS (
         SELECT r.id AS rule_id, (r.condition ->> 'below')::float8 AS below, (r.condition ->> 'forS')::int AS for_s, c.id AS call_id, c.external_id,
                (SELECT max(ts) FROM participant_score WHERE call_id = c.id) AS latest
         FROM alert_rule r JOIN call c ON c.project_id = r.project_id AND c.ended_at IS NULL AND ${RULE_CALLS}
         WHERE r.id = ANY($1::uuid[])
       )
       SELECT l.rule_id, l.call_id AS call_db_id, l.external_id AS call_id, ps.participant, count(*)::int AS windows, max(ps.score)::float8 AS best, avg(ps.score)::float8 AS mean
       FROM live l JOIN participant_score ps ON ps.call_id = l.call_id AND ps.ts > l.latest - make_interval(secs => l.for_s)
       GROUP BY l.rule_id, l.below, l.for_s, l.call_id, l.external_id, ps.participant
       HAVING max(ps.score) < l.below AND count(*) >= ceil(l.for_s * 1000.0 / $2)`,
      [rules.map((r) => r.id), SCORE_WINDOW_MS],
    );
    const byId = new Map(rules.map((r) => [r.id, r.condition]));
    return rows.map((r) => {
      const c = byId.get(r.rule_id)!;
      return {
        ruleId: r.rule_id,
        subject: `participant:${r.call_db_id}:${r.participant}`,
        callDbId: r.call_db_id,
        callId: r.call_id,
        participantId: r.participant,
        summary: `${r.participant} in call ${r.call_id} scored under ${c.below} for ${c.forS} s (mean ${r.mean.toFixed(2)})`,
        value: r.mean,
      };
    });
  },
};
