import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { emailKey } from './emails.js';

export interface User {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
}

const COLUMNS = `id, email, name, password_hash AS "passwordHash"`;

/** A new person; null when the address has an account already. */
export async function createUser(
  db: pg.ClientBase,
  user: { email: string; name: string; passwordHash: string | null },
): Promise<User | null> {
  const { rows } = await db.query<User>(
    `INSERT INTO app_user (id, email, email_key, name, password_hash) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (email_key) DO NOTHING RETURNING ${COLUMNS}`,
    [randomUUID(), user.email.trim(), emailKey(user.email), user.name.trim(), user.passwordHash],
  );
  return rows[0] ?? null;
}

export async function userByEmail(db: pg.ClientBase | pg.Pool, email: string): Promise<User | null> {
  const { rows } = await db.query<User>(`SELECT ${COLUMNS} FROM app_user WHERE email_key = $1`, [emailKey(email)]);
  return rows[0] ?? null;
}

export async function userById(db: pg.ClientBase | pg.Pool, id: string): Promise<User | null> {
  const { rows } = await db.query<User>(`SELECT ${COLUMNS} FROM app_user WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** A new password: every reset link made before it stops working (one made for the old password must not undo the new). */
export async function setPassword(db: pg.ClientBase, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE app_user SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
  await db.query(`UPDATE user_token SET used_at = now() WHERE user_id = $1 AND kind = 'reset' AND used_at IS NULL`, [userId]);
}
