import { DETECTORS } from '@rtcscope/diagnosis';
import type { AlertCondition, AlertRule, AlertRuleInput } from '@rtcscope/protocol';
import type pg from 'pg';

/** The issue types a rule may name: those the diagnosis raises. */
export const ISSUE_TYPES: ReadonlySet<string> = new Set(DETECTORS.map((d) => d.type));

/** Why a rule the schema let through is still refused, or null. */
export async function ruleProblem(pool: pg.Pool, projectId: string, input: AlertRuleInput): Promise<string | null> {
  const c = input.condition;
  if ((c.kind === 'call-issue' || c.kind === 'fleet-issue-share') && !ISSUE_TYPES.has(c.issueType)) {
    return `condition.issueType must be one of the diagnosis's issue types: ${[...ISSUE_TYPES].join(', ')}`;
  }
  if (input.endpointIds?.length) {
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM webhook_endpoint WHERE project_id = $1 AND id = ANY($2::uuid[])', [
      projectId,
      input.endpointIds,
    ]);
    const unknown = input.endpointIds.filter((id) => !rows.some((r) => r.id === id));
    if (unknown.length) return `endpointIds: this project has no webhook endpoint ${unknown.join(', ')}`;
  }
  return null;
}

interface RuleRow {
  id: string;
  name: string;
  enabled: boolean;
  condition: AlertCondition;
  endpoint_ids: string[] | null;
  created_at: Date;
  updated_at: Date;
}
const toRule = (r: RuleRow): AlertRule => ({
  id: r.id,
  name: r.name,
  enabled: r.enabled,
  condition: r.condition,
  endpointIds: r.endpoint_ids,
  createdAt: r.created_at.getTime(),
  updatedAt: r.updated_at.getTime(),
});
const COLUMNS = 'id, name, enabled, condition, endpoint_ids, created_at, updated_at';

export async function listRules(pool: pg.Pool, projectId: string): Promise<AlertRule[]> {
  const { rows } = await pool.query<RuleRow>(`SELECT ${COLUMNS} FROM alert_rule WHERE project_id = $1 ORDER BY created_at, id`, [
    projectId,
  ]);
  return rows.map(toRule);
}

export async function getRule(pool: pg.Pool, projectId: string, id: string): Promise<AlertRule | null> {
  const { rows } = await pool.query<RuleRow>(`SELECT ${COLUMNS} FROM alert_rule WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return rows[0] ? toRule(rows[0]) : null;
}

export async function createRule(pool: pg.Pool | pg.ClientBase, projectId: string, input: AlertRuleInput): Promise<AlertRule> {
  const { rows } = await pool.query<RuleRow>(
    `INSERT INTO alert_rule (project_id, name, enabled, condition, endpoint_ids) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [projectId, input.name, input.enabled, input.condition, input.endpointIds ?? null],
  );
  return toRule(rows[0]!);
}

/** A changed condition is a new rule's: its open alerts resolve at the next evaluation if the new one does not hold. */
export async function updateRule(
  pool: pg.Pool | pg.ClientBase,
  projectId: string,
  id: string,
  input: AlertRuleInput,
): Promise<AlertRule | null> {
  const { rows } = await pool.query<RuleRow>(
    `UPDATE alert_rule SET name = $3, enabled = $4, condition = $5, endpoint_ids = $6, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id, input.name, input.enabled, input.condition, input.endpointIds ?? null],
  );
  return rows[0] ? toRule(rows[0]) : null;
}

/** Deletes the rule with its alerts; their notifications stay in the list (and are delivered). */
export async function deleteRule(pool: pg.Pool | pg.ClientBase, projectId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM alert_rule WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rowCount === 1;
}
