import type pg from 'pg';

/**
 * Removes what no longer opens anything, a week after it stopped: ended sessions, used or expired
 * links and invitations, sign-ons never finished, and sign-in counts past their window. (The audit log
 * keeps what happened; the lists of sessions and invitations show only live ones.)
 */
export async function pruneAccounts(pool: pg.Pool): Promise<number> {
  const statements = [
    `DELETE FROM user_session WHERE expires_at < now() - interval '7 days' OR revoked_at < now() - interval '7 days'`,
    `DELETE FROM user_token WHERE expires_at < now() - interval '7 days'`,
    `DELETE FROM invitation WHERE expires_at < now() - interval '7 days' OR revoked_at < now() - interval '7 days' OR accepted_at < now() - interval '7 days'`,
    `DELETE FROM sso_attempt WHERE created_at < now() - interval '1 hour'`,
    `DELETE FROM sign_in_limit WHERE expire < extract(epoch FROM now()) * 1000`,
  ];
  let removed = 0;
  for (const sql of statements) removed += (await pool.query(sql)).rowCount ?? 0;
  return removed;
}
