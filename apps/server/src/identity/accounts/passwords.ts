import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords are kept as argon2id hashes (the library's defaults: 19 MiB, 2 passes, OWASP's minimum),
 * each with its own salt, in the PHC string format that carries its parameters.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// A hash of nothing anyone knows: checked against when the account does not exist, so that the answer
// takes as long as for one that does and timing does not tell which addresses have accounts.
const NOBODY = hash('no account has this password');

/** Whether `password` is the one `stored` was made from; false when there is no stored hash. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    await verify(await NOBODY, password);
    return false;
  }
  return verify(stored, password);
}
