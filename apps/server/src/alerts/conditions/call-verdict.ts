import type { Static } from '@sinclair/typebox';
import type { CallVerdictCondition } from '@rtcscope/protocol';
import { callJudgements, liveScores, verdictOf } from '../../diagnosis/store.js';
import type { Condition } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

const WORSE_THAN_GOOD = { poor: ['poor'], fair: ['fair', 'poor'] } as const;

/**
 * A live call whose verdict so far (the calls list's: from its issues and score) is the rule's or worse:
 * one alert per call, the call's summary saying what made it so. It ends with the call. Its score is kept
 * as it goes (`liveScores`): a round reads each live call's last minute, not its whole history.
 */
export const callVerdict: Condition<Static<typeof CallVerdictCondition>> = {
  kind: 'call-verdict',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; call_db_id: string; call_id: string }>(
      `SELECT r.id AS rule_id, c.id AS call_db_id, c.external_id AS call_id
       FROM alert_rule r JOIN call c ON c.project_id = r.project_id AND c.ended_at IS NULL AND ${RULE_CALLS}
       WHERE r.id = ANY($1::uuid[])`,
      [rules.map((r) => r.id)],
    );
    if (!rows.length) return [];
    const judged = await callJudgements(pool, [...new Set(rows.map((r) => BigInt(r.call_db_id)))], liveScores);
    const byId = new Map(rules.map((r) => [r.id, r.condition]));
    return rows.flatMap((r) => {
      const j = judged.get(String(r.call_db_id))!;
      const verdict = verdictOf(j);
      if (!(WORSE_THAN_GOOD[byId.get(r.rule_id)!.atLeast] as readonly string[]).includes(verdict)) return [];
      const worst = j.issues.filter((i) => i.severity !== 'info').map((i) => `${i.type} (${i.severity})`);
      return [
        {
          ruleId: r.rule_id,
          subject: `call:${r.call_db_id}`,
          callDbId: r.call_db_id,
          callId: r.call_id,
          participantId: null,
          summary: `call ${r.call_id} is judged ${verdict}: ${worst.length ? worst.join(', ') : `score ${j.score?.toFixed(2) ?? '–'} with no issue`}`,
          value: j.score,
        },
      ];
    });
  },
};
