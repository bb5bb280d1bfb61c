import type { AlertCondition, AlertNotification } from '@rtcscope/protocol';
import type pg from 'pg';
import { inTransaction, lostToDeletion, withClient } from '../db/client.js';
import type { Firing, RuleOf } from './conditions/condition.js';
import { CONDITIONS } from './conditions/index.js';
import { type AlertRow, storeNotification } from './notify.js';

// SQL through `pg`: one evaluator at a time across nodes (a session's advisory lock), and an alert
// opened once per rule and subject by a partial unique index (`ON CONFLICT` on it).

/** Held while a node evaluates, so that one node at a time does (the unique open alert is the guarantee). */
const EVALUATION_LOCK = 0x72746361;
/**
 * A rule notifies each alert of its own at most this many times in `NOTIFIED_WITHIN_MIN` minutes; past
 * that its new alerts are quiet (kept, shown, not notified), and one alert of the rule, subject
 * `HELD_BACK`, fires while any are open and says how many: a flood of calls pages once, not thousands
 * of times.
 */
export const NOTIFIED_PER_RULE = 10;
const NOTIFIED_WITHIN_MIN = 10;
export const HELD_BACK = 'held-back';
/**
 * A held-back alert stays open this long after the last of its rule's quiet alerts resolved: a flood
 * whose subjects come and go would otherwise resolve it and fire it again every few rounds, paging each
 * time it means to spare.
 */
export const HELD_BACK_STAYS_MIN = NOTIFIED_WITHIN_MIN;

/** An alert's key among a round's: its rule and subject. */
const key = (ruleId: string, subject: string) => `${ruleId}\n${subject}`;

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
  quiet: boolean;
  clear_since: Date | null;
  /** Its participant left or its call ended: it ends at once, with nothing to wait for. */
  gone: boolean;
  name: string;
  condition: AlertCondition;
}

/** A rule as a round reads it. */
interface RuleRow {
  id: string;
  project_id: string;
  name: string;
  condition: AlertCondition;
  fire_after_s: number;
  resolve_after_s: number;
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

/** Told how long a round took, and within it each kind of condition's reading (seconds). */
export interface EvaluationTimes {
  round(seconds: number): void;
  condition(kind: AlertCondition['kind'], seconds: number): void;
}

/**
 * `now` is the round's clock for what the rules' hysteresis times (a condition's holding and clearing,
 * an alert's start and resolution, the notified count's window): the server's, or a test's.
 */
export async function evaluateRules(pool: pg.Pool, times?: EvaluationTimes, now = new Date()): Promise<Made[]> {
  return withClient(pool, async (lock) => {
    const { rows: held } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [EVALUATION_LOCK]);
    if (!held[0]!.ok) return [];
    const started = performance.now();
    try {
      return await evaluate(pool, times, now);
    } finally {
      times?.round((performance.now() - started) / 1000);
      await lock.query('SELECT pg_advisory_unlock($1)', [EVALUATION_LOCK]);
    }
  });
}

async function evaluate(pool: pg.Pool, times: EvaluationTimes | undefined, now: Date): Promise<Made[]> {
  // Open alerts first: one resolved below was not holding at a time after it fired.
  const { rows: open } = await pool.query<OpenAlert>(
    `SELECT a.id, a.project_id, a.rule_id, a.subject, c.external_id AS call_id, a.participant, a.summary, a.value, a.started_at, a.quiet,
            a.clear_since, r.name, r.condition,
            a.call_id IS NOT NULL AND (c.ended_at IS NOT NULL
              OR EXISTS (SELECT 1 FROM participant p WHERE p.call_id = a.call_id AND p.external_id = a.participant AND p.left_at IS NOT NULL)) AS gone
     FROM alert a JOIN alert_rule r ON r.id = a.rule_id LEFT JOIN call c ON c.id = a.call_id WHERE a.resolved_at IS NULL`,
  );
  const { rows: recent } = await pool.query<{ rule_id: string; notified: number }>(
    `SELECT rule_id, count(*)::int AS notified FROM alert WHERE NOT quiet AND subject <> $1 AND started_at > $3::timestamptz - make_interval(mins => $2) GROUP BY rule_id`,
    [HELD_BACK, NOTIFIED_WITHIN_MIN, now],
  );
  const notified = new Map(recent.map((r) => [r.rule_id, r.notified]));
  const { rows: rules } = await pool.query<RuleRow>(
    'SELECT id, project_id, name, condition, fire_after_s, resolve_after_s FROM alert_rule WHERE enabled',
  );
  const byKind = new Map<AlertCondition['kind'], RuleOf<AlertCondition>[]>();
  for (const r of rules) {
    const list = byKind.get(r.condition.kind) ?? [];
    list.push({ id: r.id, projectId: r.project_id, name: r.name, condition: r.condition });
    byKind.set(r.condition.kind, list);
  }
  const firings = (
    await Promise.all(
      [...byKind].map(async ([kind, list]) => {
        const started = performance.now();
        const found = await CONDITIONS[kind].firing(pool, list);
        times?.condition(kind, (performance.now() - started) / 1000);
        return found;
      }),
    )
  ).flat();
  const openByKey = new Map(open.map((a) => [key(a.rule_id, a.subject), a]));
  const ruleById = new Map(rules.map((r) => [r.id, r]));
  const held = await heldLongEnough(pool, firings, openByKey, ruleById, now);
  const made: Made[] = [];
  // Quiet alerts of each rule that hold after this round: the held-back alert's count.
  const quiet = new Map<string, number>();
  const countQuiet = (ruleId: string) => quiet.set(ruleId, (quiet.get(ruleId) ?? 0) + 1);
  for (const f of firings) {
    const already = openByKey.get(key(f.ruleId, f.subject)) ?? (await carriedOn(pool, f, openByKey));
    if (already) {
      if (already.clear_since) await pool.query('UPDATE alert SET clear_since = NULL WHERE id = $1', [already.id]);
      if (already.quiet) countQuiet(f.ruleId);
      continue;
    }
    if (!held.has(key(f.ruleId, f.subject))) continue;
    const rule = ruleById.get(f.ruleId)!;
    const sent = notified.get(f.ruleId) ?? 0;
    const isQuiet = sent >= NOTIFIED_PER_RULE;
    const fired = await unlessDeleted(fire(pool, rule, f, isQuiet, now));
    if (isQuiet) countQuiet(f.ruleId);
    else notified.set(f.ruleId, sent + 1);
    if (fired) made.push({ projectId: rule.project_id, notification: fired });
  }
  const heldBack = [...quiet].map(([ruleId, n]) => heldBackFiring(ruleId, ruleById.get(ruleId)!.name, n));
  for (const f of heldBack) {
    const standing = openByKey.get(key(f.ruleId, f.subject));
    if (standing) {
      if (standing.value !== f.value)
        await pool.query('UPDATE alert SET value = $2, summary = $3 WHERE id = $1', [standing.id, f.value, f.summary]);
      continue;
    }
    const fired = await unlessDeleted(fire(pool, ruleById.get(f.ruleId)!, f, false, now));
    if (fired) made.push({ projectId: ruleById.get(f.ruleId)!.project_id, notification: fired });
  }
  const firingKeys = new Set([...firings, ...heldBack].map((f) => key(f.ruleId, f.subject)));
  const stillHeld = await heldBackStaying(
    pool,
    open.filter((a) => a.subject === HELD_BACK && !firingKeys.has(key(a.rule_id, a.subject))).map((a) => a.rule_id),
    now,
  );
  for (const a of open) {
    if (firingKeys.has(key(a.rule_id, a.subject))) continue;
    if (a.subject === HELD_BACK ? stillHeld.has(a.rule_id) : !(await clearLongEnough(pool, a, ruleById.get(a.rule_id), now))) continue;
    const resolved = await resolve(pool, a, now);
    if (resolved) made.push({ projectId: a.project_id, notification: resolved });
  }
  return made;
}

/**
 * Of this round's firings without an open alert, those whose condition has held their rule's
 * `fire_after_s` without a break (since when is kept in `alert_pending`, shared by every node); a
 * condition that stopped holding starts again from nothing.
 */
async function heldLongEnough(
  pool: pg.Pool,
  firings: readonly Firing[],
  openByKey: ReadonlyMap<string, OpenAlert>,
  ruleById: ReadonlyMap<string, RuleRow>,
  now: Date,
): Promise<Set<string>> {
  const held = new Set<string>();
  const waiting = firings.filter((f) => {
    if (openByKey.has(key(f.ruleId, f.subject))) return false;
    if (ruleById.get(f.ruleId)!.fire_after_s > 0) return true;
    held.add(key(f.ruleId, f.subject));
    return false;
  });
  const { rows } = await pool.query<{ rule_id: string; subject: string; since: Date }>(
    `WITH holding AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) h(project_id, rule_id, subject)),
     gone AS (DELETE FROM alert_pending p WHERE NOT EXISTS (SELECT 1 FROM holding h WHERE h.rule_id = p.rule_id AND h.subject = p.subject)),
     added AS (INSERT INTO alert_pending (project_id, rule_id, subject, since) SELECT project_id, rule_id, subject, $4 FROM holding
               WHERE EXISTS (SELECT 1 FROM alert_rule r WHERE r.id = holding.rule_id) ON CONFLICT DO NOTHING)
     SELECT p.rule_id, p.subject, p.since FROM alert_pending p JOIN holding h ON h.rule_id = p.rule_id AND h.subject = p.subject`,
    [waiting.map((f) => ruleById.get(f.ruleId)!.project_id), waiting.map((f) => f.ruleId), waiting.map((f) => f.subject), now],
  );
  for (const r of rows)
    if (now.getTime() - r.since.getTime() >= ruleById.get(r.rule_id)!.fire_after_s * 1000) held.add(key(r.rule_id, r.subject));
  return held;
}

/**
 * Whether an open alert whose condition does not hold this round has been clear its rule's
 * `resolve_after_s`: the first such round notes since when. One whose participant left or call ended,
 * or whose rule is off, goes at once.
 */
async function clearLongEnough(pool: pg.Pool, a: OpenAlert, rule: RuleRow | undefined, now: Date): Promise<boolean> {
  if (a.gone || !rule) return true;
  if (!a.clear_since) {
    if (rule.resolve_after_s === 0) return true;
    await pool.query('UPDATE alert SET clear_since = $2 WHERE id = $1 AND clear_since IS NULL', [a.id, now]);
    return false;
  }
  return now.getTime() - a.clear_since.getTime() >= rule.resolve_after_s * 1000;
}

/** Of these rules, those with a quiet alert open or resolved within HELD_BACK_STAYS_MIN: their held-back alerts stay open. */
async function heldBackStaying(pool: pg.Pool, ruleIds: string[], now: Date): Promise<Set<string>> {
  if (!ruleIds.length) return new Set();
  const { rows } = await pool.query<{ rule_id: string }>(
    `SELECT DISTINCT rule_id FROM alert WHERE rule_id = ANY($1::uuid[]) AND quiet
       AND (resolved_at IS NULL OR resolved_at > $3::timestamptz - make_interval(mins => $2))`,
    [ruleIds, HELD_BACK_STAYS_MIN, now],
  );
  return new Set(rows.map((r) => r.rule_id));
}

/** An open alert of a subject the firing was known by before, now carried on under its subject; none without one. */
async function carriedOn(pool: pg.Pool, f: Firing, openByKey: Map<string, OpenAlert>): Promise<OpenAlert | undefined> {
  const before = f.formerly?.map((s) => openByKey.get(key(f.ruleId, s))).find((a) => a !== undefined);
  if (!before) return undefined;
  await pool.query('UPDATE alert SET subject = $2, participant = $3, summary = $4 WHERE id = $1 AND resolved_at IS NULL', [
    before.id,
    f.subject,
    f.participantId,
    f.summary,
  ]);
  openByKey.delete(key(f.ruleId, before.subject));
  before.subject = f.subject;
  openByKey.set(key(f.ruleId, f.subject), before);
  return before;
}

/** The alert that stands for a rule's quiet ones while any are open. */
function heldBackFiring(ruleId: string, name: string, n: number): Firing {
  return {
    ruleId,
    subject: HELD_BACK,
    callDbId: null,
    callId: null,
    participantId: null,
    summary: `"${name}" holds for ${n} more ${n === 1 ? 'subject' : 'subjects'} than it notifies one by one (${NOTIFIED_PER_RULE} in ${NOTIFIED_WITHIN_MIN} minutes): they are not notified until fewer hold; this alert resolves then`,
    value: n,
  };
}

/** Fires an alert; its notification, or null when it is quiet or was open already. */
function fire(pool: pg.Pool, rule: RuleRow, f: Firing, quiet: boolean, now: Date): Promise<AlertNotification | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; started_at: Date }>(
      `INSERT INTO alert (project_id, rule_id, subject, call_id, participant, summary, value, quiet, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (rule_id, subject) WHERE resolved_at IS NULL DO NOTHING RETURNING id, started_at`,
      [rule.project_id, rule.id, f.subject, f.callDbId, f.participantId, f.summary, f.value, quiet, now],
    );
    if (!rows[0] || quiet) return null;
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

/** What `work` made, or null when its rule, call or project was deleted meanwhile. */
const unlessDeleted = <T>(work: Promise<T>): Promise<T | null> =>
  work.catch((err: unknown) => {
    if (lostToDeletion(err)) return null;
    throw err;
  });

/**
 * An alert that no longer holds: resolved, or ended when its participant left or its call ended while it
 * held (what it was about went away with them: it did not recover).
 */
function resolve(pool: pg.Pool, a: OpenAlert, now: Date): Promise<AlertNotification | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ resolved_at: Date }>(
      'UPDATE alert SET resolved_at = $2 WHERE id = $1 AND resolved_at IS NULL RETURNING resolved_at',
      [a.id, now],
    );
    if (!rows[0] || a.quiet) return null;
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
    return storeNotification(client, a.gone ? 'ended' : 'resolved', alert);
  });
}
