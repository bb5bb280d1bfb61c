import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRules, HELD_BACK, HELD_BACK_STAYS_MIN, NOTIFIED_PER_RULE } from '../src/alerts/evaluate.js';
import { createProject, type NewProject } from '../src/identity/keys/keys.js';
import type { Database } from '../src/db/database.js';
import { freshDatabase } from './harness.js';

// Issue 60: one 95-s call produced 48 webhook deliveries, a rule firing and resolving every 4–10 s.
// Rounds run here on a clock the test drives (every 2 s, as the server's), over a database of their own
// (no server evaluates it meanwhile), and each delivery the outbox holds is counted.

let fresh: { db: Database; drop(): Promise<void> };
let project: NewProject;
beforeAll(async () => {
  fresh = await freshDatabase();
  project = await createProject(fresh.db, 'hysteresis');
  await fresh.db.pool.query(
    `INSERT INTO webhook_endpoint (project_id, url, format, enabled, secret) VALUES ($1, 'http://127.0.0.1:9/', 'json', true, 'whsec_AAAA')`,
    [project.projectId],
  );
});
afterAll(() => fresh.drop());

const ROUND_MS = 2000;
let clock = Date.parse('2026-12-02T10:00:00Z');

async function rule(name: string, fireAfterS: number, resolveAfterS: number): Promise<string> {
  const { rows } = await fresh.db.pool.query<{ id: string }>(
    `INSERT INTO alert_rule (project_id, name, enabled, condition, every_endpoint, fire_after_s, resolve_after_s)
     VALUES ($1, $2, true, '{"kind": "call-issue", "issueType": "downlink-loss"}', true, $3, $4) RETURNING id`,
    [project.projectId, name, fireAfterS, resolveAfterS],
  );
  return rows[0]!.id;
}

/** A new live call; those before it are over (their open issues are no rule's concern after). */
async function call(externalId: string): Promise<string> {
  const at = new Date(clock);
  await fresh.db.pool.query('UPDATE call SET ended_at = $2 WHERE project_id = $1 AND ended_at IS NULL', [project.projectId, at]);
  const { rows } = await fresh.db.pool.query<{ id: string }>(
    'INSERT INTO call (project_id, external_id, started_at, last_seen_at) VALUES ($1, $2, $3, $3) RETURNING id',
    [project.projectId, externalId, at],
  );
  return rows[0]!.id;
}

/** Opens or closes `participant`'s downlink loss in the call, as the diagnosis stores it. */
async function loss(callDbId: string, participant: string, open: boolean): Promise<void> {
  const at = new Date(clock);
  if (!open) {
    await fresh.db.pool.query('UPDATE call_issue SET ended_at = $3 WHERE call_id = $1 AND participant = $2 AND ended_at IS NULL', [
      callDbId,
      participant,
      at,
    ]);
    return;
  }
  await fresh.db.pool.query(
    `INSERT INTO call_issue (project_id, call_id, participant, type, category, severity, started_at, cause, evidence, check_hint)
     SELECT $1, $2, $3, 'downlink-loss', 'network', 'critical', $4, 'loss on the way in', '{}', 'the network'
     WHERE NOT EXISTS (SELECT 1 FROM call_issue WHERE call_id = $2 AND participant = $3 AND ended_at IS NULL)`,
    [project.projectId, callDbId, participant, at],
  );
}

/** Rounds over `seconds`, each first setting what holds at that moment. */
async function rounds(seconds: number, holding: (s: number) => Promise<void>): Promise<void> {
  for (let s = 0; s < seconds; s += ROUND_MS / 1000) {
    await holding(s);
    await evaluateRules(fresh.db.pool, undefined, new Date(clock));
    clock += ROUND_MS;
  }
}

/** Every delivery of the rule's notifications, in order: state and subject. */
async function deliveries(ruleId: string): Promise<string[]> {
  const { rows } = await fresh.db.pool.query<{ state: string; participant: string | null }>(
    `SELECT n.payload ->> 'state' AS state, n.payload -> 'alert' ->> 'participantId' AS participant
     FROM webhook_delivery d JOIN notification n ON n.id = d.notification_id WHERE n.payload -> 'rule' ->> 'id' = $1 ORDER BY d.id`,
    [ruleId],
  );
  return rows.map((r) => `${r.state} ${r.participant ?? HELD_BACK}`);
}

/** Lost 4 s of every 10: a condition that comes and goes. */
const flapping = (s: number) => s % 10 < 4;

describe('alert rules over a condition that comes and goes', () => {
  it('fire once and resolve once it has been clear for the rule’s time, not at every dip', async () => {
    const r = await rule('Loss, flapping', 0, 30);
    const c = await call('flap');
    await rounds(96, (s) => loss(c, 'alice', flapping(s)));
    expect(await deliveries(r)).toEqual(['firing alice']);
    // Clear for 28 s: still open. At 30 s: resolved.
    await rounds(28, () => loss(c, 'alice', false));
    expect(await deliveries(r)).toEqual(['firing alice']);
    await rounds(4, () => loss(c, 'alice', false));
    expect(await deliveries(r)).toEqual(['firing alice', 'resolved alice']);
    await fresh.db.pool.query('DELETE FROM alert_rule WHERE id = $1', [r]);
  });

  it('fire only once the condition has held the rule’s time without a break', async () => {
    const r = await rule('Loss, held 10 s', 10, 0);
    const c = await call('held');
    // 8 s of loss in every 12: never 10 s in a row.
    await rounds(96, (s) => loss(c, 'bob', s % 12 < 8));
    expect(await deliveries(r)).toEqual([]);
    await rounds(8, () => loss(c, 'bob', true));
    expect(await deliveries(r)).toEqual([]);
    await rounds(4, () => loss(c, 'bob', true));
    expect(await deliveries(r)).toEqual(['firing bob']);
    await fresh.db.pool.query('DELETE FROM alert_rule WHERE id = $1', [r]);
  });

  it(`page a flood of flapping subjects ${NOTIFIED_PER_RULE} times and the held-back alert once, and resolve it ${HELD_BACK_STAYS_MIN} minutes after the last`, async () => {
    const r = await rule('Loss, flood', 0, 30);
    const c = await call('flood');
    const people = Array.from({ length: NOTIFIED_PER_RULE + 4 }, (_, k) => `p${String(k).padStart(2, '0')}`);
    // Each person's loss comes and goes, each at its own phase.
    await rounds(96, async (s) => {
      for (const [k, p] of people.entries()) await loss(c, p, flapping(s + k));
    });
    const fired = await deliveries(r);
    expect(fired.filter((d) => d.startsWith('firing')).length).toBe(NOTIFIED_PER_RULE + 1);
    expect(fired.filter((d) => d === `firing ${HELD_BACK}`)).toHaveLength(1);
    expect(fired.filter((d) => d.startsWith('resolved'))).toEqual([]);
    await rounds(32, async () => {
      for (const p of people) await loss(c, p, false);
    });
    // The notified ones resolve, the quiet ones quietly; the held-back alert stays for its window.
    expect((await deliveries(r)).filter((d) => d.startsWith('resolved'))).toHaveLength(NOTIFIED_PER_RULE);
    const { rows } = await fresh.db.pool.query<{ last: Date }>('SELECT max(resolved_at) AS last FROM alert WHERE rule_id = $1 AND quiet', [
      r,
    ]);
    const stays = rows[0]!.last.getTime() + HELD_BACK_STAYS_MIN * 60_000;
    await rounds((stays - clock) / 1000 - 2, () => Promise.resolve());
    expect(await deliveries(r)).not.toContain(`resolved ${HELD_BACK}`);
    await rounds(4, () => Promise.resolve());
    const all = await deliveries(r);
    expect(all.filter((d) => d === `resolved ${HELD_BACK}`)).toHaveLength(1);
    expect(all).toHaveLength(2 * (NOTIFIED_PER_RULE + 1));
  });
});
