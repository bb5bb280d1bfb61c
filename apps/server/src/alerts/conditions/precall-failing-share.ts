import type { Static } from '@sinclair/typebox';
import { FLEET_WINDOW_S, type PrecallFailingCondition } from '@rtcscope/protocol';
import { type Condition, shareFirings } from './condition.js';

/** Of the pre-call tests stored in the last 15 minutes (at least `minTests`), more than `abovePct` % failed: users cannot get through. */
export const precallFailingShare: Condition<Static<typeof PrecallFailingCondition>> = {
  kind: 'precall-failing-share',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; whole: number; part: number }>(
      `SELECT r.id AS rule_id, count(*)::int AS whole, count(*) FILTER (WHERE t.verdict = 'failed')::int AS part
       FROM alert_rule r JOIN precall_test t ON t.project_id = r.project_id AND t.created_at > now() - make_interval(secs => $2)
       WHERE r.id = ANY($1::uuid[]) GROUP BY r.id`,
      [rules.map((r) => r.id), FLEET_WINDOW_S],
    );
    return shareFirings(
      rules,
      rows,
      (c) => c.minTests,
      (_c, pct, counted) => `${pct} of pre-call tests in the last 15 minutes failed (${counted})`,
    );
  },
};
