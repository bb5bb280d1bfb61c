import type { Db } from '../../db/database.js';

const DAY_MS = 86_400_000;

/**
 * Removes what no longer opens anything, a week after it stopped: ended sessions, used or expired
 * links and invitations, sign-ons never finished, and sign-in counts past their window. (The audit log
 * keeps what happened; the lists of sessions and invitations show only live ones.)
 */
export async function pruneAccounts(db: Db): Promise<number> {
  const now = Date.now();
  const weekAgo = new Date(now - 7 * DAY_MS);
  const removed = await Promise.all([
    db.userSession.deleteMany({ where: { OR: [{ expiresAt: { lt: weekAgo } }, { revokedAt: { lt: weekAgo } }] } }),
    db.userToken.deleteMany({ where: { expiresAt: { lt: weekAgo } } }),
    db.invitation.deleteMany({
      where: { OR: [{ expiresAt: { lt: weekAgo } }, { revokedAt: { lt: weekAgo } }, { acceptedAt: { lt: weekAgo } }] },
    }),
    db.ssoAttempt.deleteMany({ where: { createdAt: { lt: new Date(now - 3_600_000) } } }),
    // rate-limiter-flexible's own table, which has no model (prisma/schema.prisma's header).
    db.$executeRaw`DELETE FROM sign_in_limit WHERE expire < ${now}`,
  ]);
  return removed.reduce<number>((sum, r) => sum + (typeof r === 'number' ? r : r.count), 0);
}
