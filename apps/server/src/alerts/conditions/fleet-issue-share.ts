import type { Static } from '@sinclair/typebox';
import { FLEET_WINDOW_S, type FleetIssueCondition } from '@rtcscope/protocol';
import { type Condition, shareFirings } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

/** Of the calls active in the last 15 minutes (at least `minCalls`), more than `abovePct` % had an issue of the type then. */
export const fleetIssueShare: Condition<Static<typeof FleetIssueCondition>> = {
  kind: 'fleet-issue-share',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; whole: number; part: number }>(
      `SELECT r.id AS rule_id, count(*)::int AS whole,
              count(*) FILTER (WHERE EXISTS (
                SELECT 1 FROM call_issue i WHERE i.call_id = c.id AND i.type = r.condition ->> 'issueType'
                  AND (i.ended_at IS NULL OR i.ended_at > now() - make_interval(secs => $2))))::int AS part
       FROM alert_rule r JOIN call c ON c.project_id = r.project_id AND c.last_seen_at > now() - make_interval(secs => $2) AND ${RULE_CALLS}
       WHERE r.id = ANY($1::uuid[]) GROUP BY r.id`,
      [rules.map((r) => r.id), FLEET_WINDOW_S],
    );
    return shareFirings(
      rules,
      rows,
      (c) => c.minCalls,
      (c, pct, counted) => `${pct} of calls in the last 15 minutes had ${c.issueType} (${counted})`,
    );
  },
};
