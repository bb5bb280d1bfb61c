import { DETECTORS } from '@rtcscope/diagnosis';
import { type AlertCondition, type AlertRule, type AlertRuleInput, RULE_DEFAULTS } from '@rtcscope/protocol';
import type { Db } from '../db/database.js';
import type { AlertRule as RuleRow, Prisma } from '../generated/prisma/client.js';

/** The issue types a rule may name: those the diagnosis raises. */
export const ISSUE_TYPES: ReadonlySet<string> = new Set(DETECTORS.map((d) => d.type));

/** Why a rule the schema let through is still refused, or null. */
export async function ruleProblem(db: Db, projectId: string, input: AlertRuleInput): Promise<string | null> {
  const c = input.condition;
  if ((c.kind === 'call-issue' || c.kind === 'fleet-issue-share') && !ISSUE_TYPES.has(c.issueType)) {
    return `condition.issueType must be one of the diagnosis's issue types: ${[...ISSUE_TYPES].join(', ')}`;
  }
  if (input.endpointIds?.length) {
    const rows = await db.webhookEndpoint.findMany({ where: { projectId, id: { in: input.endpointIds } }, select: { id: true } });
    const unknown = input.endpointIds.filter((id) => !rows.some((r) => r.id === id));
    if (unknown.length) return `endpointIds: this project has no webhook endpoint ${unknown.join(', ')}`;
  }
  return null;
}

const toRule = (r: RuleRow): AlertRule => ({
  id: r.id,
  name: r.name,
  enabled: r.enabled,
  condition: r.condition as AlertCondition,
  endpointIds: r.everyEndpoint ? null : r.endpointIds,
  fireAfterS: r.fireAfterS,
  resolveAfterS: r.resolveAfterS,
  includeLab: r.includeLab,
  createdAt: r.createdAt.getTime(),
  updatedAt: r.updatedAt.getTime(),
});
const fields = (input: AlertRuleInput) => ({
  name: input.name,
  enabled: input.enabled,
  condition: input.condition as Prisma.InputJsonObject,
  everyEndpoint: !input.endpointIds,
  endpointIds: input.endpointIds ?? [],
  fireAfterS: input.fireAfterS ?? RULE_DEFAULTS.fireAfterS,
  resolveAfterS: input.resolveAfterS ?? RULE_DEFAULTS.resolveAfterS,
  includeLab: input.includeLab ?? RULE_DEFAULTS.includeLab,
});

export async function listRules(db: Db, projectId: string): Promise<AlertRule[]> {
  return (await db.alertRule.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toRule);
}

export async function getRule(db: Db, projectId: string, id: string): Promise<AlertRule | null> {
  const rule = await db.alertRule.findFirst({ where: { projectId, id } });
  return rule && toRule(rule);
}

export async function createRule(db: Db, projectId: string, input: AlertRuleInput): Promise<AlertRule> {
  return toRule(await db.alertRule.create({ data: { projectId, ...fields(input) } }));
}

/** A changed condition is a new rule's: its open alerts resolve at the next evaluation if the new one does not hold. */
export async function updateRule(db: Db, projectId: string, id: string, input: AlertRuleInput): Promise<AlertRule | null> {
  const { count } = await db.alertRule.updateMany({ where: { projectId, id }, data: { ...fields(input), updatedAt: new Date() } });
  return count ? getRule(db, projectId, id) : null;
}

/** Deletes the rule with its alerts; their notifications stay in the list (and are delivered). */
export async function deleteRule(db: Db, projectId: string, id: string): Promise<boolean> {
  return (await db.alertRule.deleteMany({ where: { projectId, id } })).count === 1;
}
