import { randomBytes } from 'node:crypto';
import { type IceServersAnswer, TURN_TTL_MAX_S } from '@rtcscope/protocol';
import type { Db } from '../db/database.js';
import { turnCredentials } from '../identity/projects/turn-credentials.js';
import { turnSettingsWithSecret } from '../identity/projects/turn.js';
import { Allowance } from './allowance.js';
import type { IngestSession } from './session.js';

/** Credentials a project's SDKs may be handed per minute, on each node: a pre-call test asks once; a publishable key must not mint a flood. */
export const ICE_SERVERS_PER_MINUTE = 120;

/**
 * Credentials one client address may be handed per minute for one project, on each node: a few tests or
 * calls from one office's NAT at once, while one attacker's address cannot spend the project's minute.
 */
export const ICE_SERVERS_PER_ADDRESS_PER_MINUTE = 12;

/** A socket is handed new credentials only when its last ones expire within this long (a call's ICE restart near their end). */
export const RENEW_BEFORE_MS = 60_000;

/**
 * Answers an SDK's `iceServers` request: the project's TURN servers with credentials that expire within
 * minutes, none when the project set none. A socket is handed one set at a time (a second only near the
 * first's expiry), and each client address and each project a bounded number a minute, the address
 * counted first so that one address cannot spend its project's minute. The user name's label is made
 * here, never taken from the client, and logged with the session so an operator can read coturn's log.
 */
export class IceServers {
  private readonly project = new Allowance(ICE_SERVERS_PER_MINUTE, 60);
  private readonly address = new Allowance(ICE_SERVERS_PER_ADDRESS_PER_MINUTE, 60);

  constructor(
    private readonly db: Db,
    private readonly handedOut: (session: IngestSession, label: string) => void,
  ) {}

  /** `address`: the client's, as `addressKey` groups it (null: not counted per address). */
  async answer(session: IngestSession, address: string | null, now = Date.now()): Promise<IceServersAnswer> {
    const held = session.turnExpiresAt;
    if (held !== null && held - now > RENEW_BEFORE_MS) {
      return {
        ok: false,
        error: `this connection holds TURN credentials good until ${new Date(held).toISOString()}: use those (new ones are handed out in their last minute)`,
      };
    }
    if (address !== null && !(await this.address.take(`${session.projectId} ${address}`))) {
      return {
        ok: false,
        error: `this address asked for the project's TURN credentials ${ICE_SERVERS_PER_ADDRESS_PER_MINUTE} times in the last minute: try again in a minute`,
      };
    }
    if (!(await this.project.take(session.projectId))) {
      return {
        ok: false,
        error: `the project asked for TURN credentials ${ICE_SERVERS_PER_MINUTE} times in the last minute: try again in a minute`,
      };
    }
    const turn = await turnSettingsWithSecret(this.db, session.projectId);
    if (!turn) return { ok: true, iceServers: [], expiresAt: null };
    const label = `rtcscope-${randomBytes(9).toString('base64url')}`;
    const { username, credential, expiresAt } = turnCredentials(turn.secret, label, Math.min(turn.ttlS, TURN_TTL_MAX_S), now);
    session.turnExpiresAt = expiresAt;
    this.handedOut(session, label);
    return { ok: true, iceServers: [{ urls: turn.urls, username, credential }], expiresAt };
  }
}
