import type { Static } from '@sinclair/typebox';
import { FLEET_WINDOW_S, type FleetIssueCondition } from '@rtcscope/protocol';
import { type Condition, fleetFiring } from './condition.js';

/** Of the calls active in the last 15 minutes (at least `minCalls`), more than `abovePct` % had an issue of the type then. */
export const fleetIssueShare: Condition<Static<typeof FleetIssueCondition>> = {
  kind: 'fleet-issue-share',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; calls: number; with_issue: number }>(
      `SELECT r.id AS rule_id, count(*)::int AS calls,
              count(*) FILTER (WHERE EXISTS (
                SELECT 1 FROM call_issue i WHERE i.call_id = c.id AND i.type = r.condition ->> 'issueType'
                  AND (i.ended_at IS NULL OR i.ended_at > now() - make_interval(secs => $2))))::int AS with_issue
       FROM alert_rule r JOIN call c ON c.project_id = r.project_id AND c.last_seen_at > now() - make_interval(secs => $2) AND c.imported_at IS NULL
       WHERE r.id = ANY($1::uuid[]) GROUP BY r.id`,
      [rules.map((r) => r.id), FLEET_WINDOW_S],
    );
    const byId = new Map(rules.map((r) => [r.id, r.condition]));
    return rows.flatMap((r) => {
      const c = byId.get(r.rule_id)!;
      const pct = (100 * r.with_issue) / r.calls;
      if (r.calls < c.minCalls || pct <= c.abovePct) return [];
      return [
        fleetFiring(
          r.rule_id,
          pct,
          `${pct.toFixed(1)} % of calls in the last 15 minutes had ${c.issueType} (${r.with_issue} of ${r.calls}; above ${c.abovePct} %)`,
        ),
      ];
    });
  },
};
