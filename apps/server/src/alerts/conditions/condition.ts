import type { AlertCondition } from '@rtcscope/protocol';
import type pg from 'pg';

// SQL through `pg`: each condition is one set-based query over every live call of every project with
// rules, run every 2 s (Prisma Client would load the rows to count them here).

/** A rule as the conditions read it. */
export interface RuleOf<C extends AlertCondition> {
  id: string;
  projectId: string;
  name: string;
  condition: C;
}

/** Something a rule's condition holds for now: one alert while it keeps holding. */
export interface Firing {
  ruleId: string;
  /** What the alert is about, unique within its rule: an issue, a participant, the fleet. */
  subject: string;
  callDbId: string | null;
  callId: string | null;
  participantId: string | null;
  summary: string;
  value: number | null;
  /**
   * Subjects this alert was known by before (a receiver's symptom, later linked to its sender's cause):
   * an alert open under one of them is carried on under `subject`, neither resolved nor notified again.
   */
  formerly?: readonly string[];
}

/**
 * One kind of alert condition: given every enabled rule of its kind (across projects), what holds for
 * each now. Read from stored calls, issues, scores and events, one query for all the rules.
 */
export interface Condition<C extends AlertCondition = AlertCondition> {
  kind: C['kind'];
  firing(pool: pg.Pool, rules: readonly RuleOf<C>[]): Promise<Firing[]>;
}

/** A fleet condition's alert: about the whole project, valued by the share it measured (%). */
export const fleetFiring = (ruleId: string, pct: number, summary: string): Firing => ({
  ruleId,
  subject: 'fleet',
  callDbId: null,
  callId: null,
  participantId: null,
  summary,
  value: pct,
});

/**
 * A fleet condition's alerts from its counts per rule: `part` of `whole` cases, judged once there are at
 * least `least(condition)` cases and firing above the rule's `abovePct`; `words` says what it measured.
 */
export function shareFirings<C extends AlertCondition & { abovePct: number }>(
  rules: readonly RuleOf<C>[],
  counts: readonly { rule_id: string; whole: number; part: number }[],
  least: (c: C) => number,
  words: (c: C, pct: string, counted: string) => string,
): Firing[] {
  const byId = new Map(rules.map((r) => [r.id, r.condition]));
  return counts.flatMap((r) => {
    const c = byId.get(r.rule_id)!;
    const pct = (100 * r.part) / r.whole;
    if (r.whole < least(c) || pct <= c.abovePct) return [];
    return [fleetFiring(r.rule_id, pct, words(c, `${pct.toFixed(1)} %`, `${r.part} of ${r.whole}; above ${c.abovePct} %`))];
  });
}
