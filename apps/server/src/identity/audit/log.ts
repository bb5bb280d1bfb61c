import type { AuditEvent, AuditQuery } from '@rtcscope/protocol';
import type { Db } from '../../db/database.js';
import { likeLiteral } from '../../db/like.js';
import type { AuditEvent as AuditEventRow, Prisma } from '../../generated/prisma/client.js';

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
 * Appends to an organization's audit log, in the transaction of the change it records, so that the
 * change and its record commit together. The table refuses updates and deletes (its migration).
 */
export async function audit(db: Db, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.auditEvent.create({
    data: {
      organizationId: entry.organizationId,
      actorKind: actor.kind,
      actorId: actor.id,
      actorLabel: actor.label,
      action: entry.action,
      projectId: entry.projectId ?? null,
      target: entry.target ?? null,
      detail: (entry.detail ?? {}) as Prisma.InputJsonObject,
      ip: actor.ip,
    },
  });
}

const toEvent = (r: AuditEventRow): AuditEvent => ({
  id: Number(r.id),
  at: r.at.getTime(),
  actor: { kind: r.actorKind as AuditEvent['actor']['kind'], id: r.actorId, label: r.actorLabel },
  action: r.action,
  projectId: r.projectId,
  target: r.target,
  detail: r.detail as Record<string, unknown>,
  ip: r.ip,
});

/**
 * An organization's events, newest first, filtered: `action` matches a whole action or a family of them
 * ("member" matches "member.invited"), `actor` an email or key name exactly (any case).
 */
export async function readAudit(db: Db, organizationId: string, q: AuditQuery): Promise<{ events: AuditEvent[]; next: number | null }> {
  const limit = q.limit ?? 100;
  const rows = await db.auditEvent.findMany({
    where: {
      organizationId,
      ...(q.action ? { OR: [{ action: q.action }, { action: { startsWith: likeLiteral(`${q.action}.`) } }] } : {}),
      ...(q.actor ? { actorLabel: { equals: likeLiteral(q.actor), mode: 'insensitive' } } : {}),
      ...(q.projectId ? { projectId: q.projectId } : {}),
      at: { ...(q.from !== undefined ? { gte: new Date(q.from) } : {}), ...(q.to !== undefined ? { lt: new Date(q.to) } : {}) },
      ...(q.before !== undefined ? { id: { lt: q.before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: limit + 1,
  });
  const events = rows.slice(0, limit).map(toEvent);
  return { events, next: rows.length > limit ? events[events.length - 1]!.id : null };
}
