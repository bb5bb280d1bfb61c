import { createHmac } from 'node:crypto';

/** A TURN user name and password good until `expiresAt` (ms), for an RTCIceServer. */
export interface TurnCredentials {
  username: string;
  credential: string;
  expiresAt: number;
}

/**
 * Time-limited TURN credentials in the scheme coturn checks with `use-auth-secret` (the TURN REST API
 * draft, draft-uberti-behave-turn-rest): the user name is the expiry in Unix seconds and a label, joined
 * by a colon; the password is the base64 HMAC-SHA1 of the user name under the secret the TURN server
 * shares with us. No long-lived password reaches a browser: one that leaks stops working at its expiry.
 */
export function turnCredentials(secret: string, label: string, ttlS: number, now = Date.now()): TurnCredentials {
  const expiry = Math.floor(now / 1000) + ttlS;
  const username = `${expiry}:${label}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64'), expiresAt: expiry * 1000 };
}
