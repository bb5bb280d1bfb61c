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
