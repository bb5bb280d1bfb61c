import type { AlertCondition, AlertNotification } from '@rtcscope/protocol';
import type pg from 'pg';
import { inTransaction, withClient } from '../db/client.js';
import type { Firing, RuleOf } from './conditions/condition.js';
import { CONDITIONS } from './conditions/index.js';
import { type AlertRow, storeNotification } from './notify.js';

/** Held while a node evaluates, so that one node at a time does (the unique open alert is the guarantee). */
const EVALUATION_LOCK = 0x72746361;

interface OpenAlert {
  id: string;
  project_id: string;
  rule_id: string;
  subject: string;
  call_id: string | null;
  participant: string | null;
  summary: string;
  value: number | null;
  started_at: Date;
  name: string;
  condition: AlertCondition;
}

/**
 * One round: every enabled rule's condition is asked what holds now; an alert fires for each new subject
 * and resolves for each that no longer holds (a disabled rule holds nothing). Returns the notifications
 * made, committed with their outbox rows, with their projects. Another node evaluating meanwhile: nothing is done.
 */
export interface Made {
  projectId: string;
  notification: AlertNotification;
}

export async function evaluateRules(pool: pg.Pool): Promise<Made[]> {
  return withClient(pool, async (lock) => {
    const { rows: held } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [EVALUATION_LOCK]);
    if (!held[0]!.ok) return [];
    try {
      return await evaluate(pool);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [EVALUATION_LOCK]);
    }
  });
}

async function evaluate(pool: pg.Pool): Promise<Made[]> {
  // Open alerts first: one resolved below was not holding at a time after it fired.
  const { rows: open } = await pool.query<OpenAlert>(
    `SELECT a.id, a.project_id, a.rule_id, a.subject, c.external_id AS call_id, a.participant, a.summary, a.value, a.started_at, r.name, r.condition
     FROM alert a JOIN alert_rule r ON r.id = a.rule_id LEFT JOIN call c ON c.id = a.call_id WHERE a.resolved_at IS NULL`,
  );
  const { rows: rules } = await pool.query<{ id: string; project_id: string; name: string; condition: AlertCondition }>(
    'SELECT id, project_id, name, condition FROM alert_rule WHERE enabled',
  );
  const byKind = new Map<string, RuleOf<AlertCondition>[]>();
  for (const r of rules) {
    const list = byKind.get(r.condition.kind) ?? [];
    list.push({ id: r.id, projectId: r.project_id, name: r.name, condition: r.condition });
    byKind.set(r.condition.kind, list);
  }
  const firings = (await Promise.all([...byKind].map(([kind, list]) => CONDITIONS[kind as AlertCondition['kind']].firing(pool, list)))).flat();
  const key = (ruleId: string, subject: string) => `${ruleId}\n${subject}`;
  const openKeys = new Set(open.map((a) => key(a.rule_id, a.subject)));
  const firingKeys = new Set(firings.map((f) => key(f.ruleId, f.subject)));
  const ruleById = new Map(rules.map((r) => [r.id, r]));
  const made: Made[] = [];
  for (const f of firings) {
    if (openKeys.has(key(f.ruleId, f.subject))) continue;
    const rule = ruleById.get(f.ruleId)!;
    const fired = await fire(pool, rule, f);
    if (fired) made.push({ projectId: rule.project_id, notification: fired });
  }
  for (const a of open) {
    if (firingKeys.has(key(a.rule_id, a.subject))) continue;
    const resolved = await resolve(pool, a);
    if (resolved) made.push({ projectId: a.project_id, notification: resolved });
  }
  return made;
}

function fire(pool: pg.Pool, rule: { id: string; project_id: string; name: string; condition: AlertCondition }, f: Firing): Promise<AlertNotification | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; started_at: Date }>(
      `INSERT INTO alert (project_id, rule_id, subject, call_id, participant, summary, value) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (rule_id, subject) WHERE resolved_at IS NULL DO NOTHING RETURNING id, started_at`,
      [rule.project_id, rule.id, f.subject, f.callDbId, f.participantId, f.summary, f.value],
    );
    if (!rows[0]) return null;
    const alert: AlertRow = {
      id: rows[0].id,
      projectId: rule.project_id,
      rule: { id: rule.id, name: rule.name, condition: rule.condition },
      callId: f.callId,
      participantId: f.participantId,
      summary: f.summary,
      value: f.value,
      startedAt: rows[0].started_at.getTime(),
      resolvedAt: null,
    };
    return storeNotification(client, 'firing', alert);
  });
}

function resolve(pool: pg.Pool, a: OpenAlert): Promise<AlertNotification | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ resolved_at: Date }>('UPDATE alert SET resolved_at = now() WHERE id = $1 AND resolved_at IS NULL RETURNING resolved_at', [a.id]);
    if (!rows[0]) return null;
    const alert: AlertRow = {
      id: a.id,
      projectId: a.project_id,
      rule: { id: a.rule_id, name: a.name, condition: a.condition },
      callId: a.call_id,
      participantId: a.participant,
      summary: a.summary,
      value: a.value,
      startedAt: a.started_at.getTime(),
      resolvedAt: rows[0].resolved_at.getTime(),
    };
    return storeNotification(client, 'resolved', alert);
  });
}
