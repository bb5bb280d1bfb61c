import type { Static } from '@sinclair/typebox';
import { FLEET_WINDOW_S, type FleetSetupCondition } from '@rtcscope/protocol';
import { connectedSql, SETUP_GRACE_S } from '../../samples/connected.js';
import { type Condition, shareFirings } from './condition.js';
import { RULE_CALLS } from '../../calls/sources.js';

/**
 * Of the participants who joined in the last 15 minutes and whose set-up is decided (connected, left, or
 * joined over 30 s ago), at least `minParticipants`, more than `abovePct` % never connected.
 */
export const fleetSetupFailures: Condition<Static<typeof FleetSetupCondition>> = {
  kind: 'fleet-setup-failures',
  async firing(pool, rules) {
    const { rows } = await pool.query<{ rule_id: string; whole: number; part: number }>(
      `SELECT rule_id, count(*)::int AS whole, count(*) FILTER (WHERE NOT connected)::int AS part FROM (
         SELECT r.id AS rule_id, p.left_at, p.joined_at, ${connectedSql('p')} AS connected
         FROM alert_rule r JOIN participant p ON p.project_id = r.project_id AND p.joined_at > now() - make_interval(secs => $2)
           JOIN call c ON c.id = p.call_id AND ${RULE_CALLS}
         WHERE r.id = ANY($1::uuid[])
       ) x WHERE connected OR left_at IS NOT NULL OR joined_at < now() - make_interval(secs => $3)
       GROUP BY rule_id`,
      [rules.map((r) => r.id), FLEET_WINDOW_S, SETUP_GRACE_S],
    );
    return shareFirings(
      rules,
      rows,
      (c) => c.minParticipants,
      (_c, pct, counted) => `${pct} of participants in the last 15 minutes never connected (${counted})`,
    );
  },
};
