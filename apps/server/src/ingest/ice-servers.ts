import type { IceServersAnswer } from '@rtcscope/protocol';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../db/database.js';
import { turnCredentials } from '../identity/projects/turn-credentials.js';
import { turnSettingsWithSecret } from '../identity/projects/turn.js';

/** Credentials a project's SDKs may be handed per minute, on each node: a pre-call test asks once; a publishable key must not mint a flood. */
export const ICE_SERVERS_PER_MINUTE = 120;

/**
 * Answers an SDK's `iceServers` request: the project's TURN servers with credentials that expire (their
 * label the SDK's session, which coturn logs), none when the project set none.
 */
export class IceServers {
  private readonly limiter = new RateLimiterMemory({ points: ICE_SERVERS_PER_MINUTE, duration: 60 });

  constructor(private readonly db: Db) {}

  async answer(projectId: string, session: string): Promise<IceServersAnswer> {
    try {
      await this.limiter.consume(projectId);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return {
        ok: false,
        error: `the project asked for TURN credentials ${ICE_SERVERS_PER_MINUTE} times in the last minute: try again in a minute`,
      };
    }
    const turn = await turnSettingsWithSecret(this.db, projectId);
    if (!turn) return { ok: true, iceServers: [], expiresAt: null };
    const { username, credential, expiresAt } = turnCredentials(turn.secret, `rtcscope-${session}`, turn.ttlS);
    return { ok: true, iceServers: [{ urls: turn.urls, username, credential }], expiresAt };
  }
}
