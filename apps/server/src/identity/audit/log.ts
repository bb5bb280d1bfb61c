import type { AuditEvent, AuditQuery } from '@rtcscope/protocol';
import type pg from 'pg';

/** Who did something: a signed-in person, an API key, or the server itself. */
export interface Actor {
  kind: 'user' | 'key' | 'system';
  id: string | null;
  /** The person's email or the key's name, as it is now: the log keeps it even once they are gone. */
  label: string;
  ip: string | null;
}

export interface AuditEntry {
  organizationId: string;
  action: string;
  projectId?: string | null;
  target?: string | null;
  detail?: Record<string, unknown>;
}

/**
 * Appends to an organization's audit log, on the connection of the change it records, so that the
 * change and its record commit together. The table refuses updates and deletes (its migration).
 */
export async function audit(db: pg.ClientBase | pg.Pool, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_event (organization_id, actor_kind, actor_id, actor_label, action, project_id, target, detail, ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.organizationId,
      actor.kind,
      actor.id,
      actor.label,
      entry.action,
      entry.projectId ?? null,
      entry.target ?? null,
      entry.detail ?? {},
      actor.ip,
    ],
  );
}

interface Row {
  id: number;
  at: Date;
  actor_kind: AuditEvent['actor']['kind'];
  actor_id: string | null;
  actor_label: string;
  action: string;
  project_id: string | null;
  target: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
}

const event = (r: Row): AuditEvent => ({
  id: r.id,
  at: r.at.getTime(),
  actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
  action: r.action,
  projectId: r.project_id,
  target: r.target,
  detail: r.detail,
  ip: r.ip,
});

/**
 * An organization's events, newest first, filtered: `action` matches a whole action or a family of them
 * ("member" matches "member.invited"), `actor` an email or key name exactly (any case).
 */
export async function readAudit(
  pool: pg.Pool,
  organizationId: string,
  q: AuditQuery,
): Promise<{ events: AuditEvent[]; next: number | null }> {
  const limit = q.limit ?? 100;
  const { rows } = await pool.query<Row>(
    `SELECT id::int AS id, at, actor_kind, actor_id, actor_label, action, project_id, target, detail, ip FROM audit_event
     WHERE organization_id = $1
       AND ($2::text IS NULL OR action = $2 OR action LIKE $2 || '.%')
       AND ($3::text IS NULL OR lower(actor_label) = lower($3))
       AND ($4::uuid IS NULL OR project_id = $4)
       AND ($5::bigint IS NULL OR at >= to_timestamp($5 / 1000.0))
       AND ($6::bigint IS NULL OR at < to_timestamp($6 / 1000.0))
       AND ($7::bigint IS NULL OR id < $7)
     ORDER BY id DESC LIMIT $8`,
    [organizationId, q.action ?? null, q.actor ?? null, q.projectId ?? null, q.from ?? null, q.to ?? null, q.before ?? null, limit + 1],
  );
  const events = rows.slice(0, limit).map(event);
  return { events, next: rows.length > limit ? events[events.length - 1]!.id : null };
}
