import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { emailKey } from './emails.js';

export interface User {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
}

const SELECTED = { id: true, email: true, name: true, passwordHash: true } as const;

/** A new person; null when the address has an account already. */
export async function createUser(db: Db, user: { email: string; name: string; passwordHash: string | null }): Promise<User | null> {
  // ON CONFLICT DO NOTHING: a unique violation would end the caller's transaction, and two sign-ups of one address may race.
  const made = await db.appUser.createManyAndReturn({
    data: [
      {
        id: randomUUID(),
        email: user.email.trim(),
        emailKey: emailKey(user.email),
        name: user.name.trim(),
        passwordHash: user.passwordHash,
      },
    ],
    skipDuplicates: true,
    select: SELECTED,
  });
  return made[0] ?? null;
}

export function userByEmail(db: Db, email: string): Promise<User | null> {
  return db.appUser.findUnique({ where: { emailKey: emailKey(email) }, select: SELECTED });
}

export function userById(db: Db, id: string): Promise<User | null> {
  return db.appUser.findUnique({ where: { id }, select: SELECTED });
}

/** A new password: every reset link made before it stops working (one made for the old password must not undo the new). */
export async function setPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.appUser.update({ where: { id: userId }, data: { passwordHash } });
  await db.userToken.updateMany({ where: { userId, kind: 'reset', usedAt: null }, data: { usedAt: new Date() } });
}
