import type { Role } from '@rtcscope/protocol';
import type { Session } from '../accounts/sessions.js';
import type { Actor } from '../audit/log.js';
import type { ApiKeyAccess } from '../keys/keys.js';

/** Who a request comes from: an API key, or a signed-in person's session. */
export type Principal = ({ kind: 'key' } & ApiKeyAccess) | { kind: 'person'; session: Session };

/** The audit log's actor for a request's principal, from `ip`. */
export function actorOf(principal: Principal, ip: string): Actor {
  if (principal.kind === 'key') return { kind: 'key', id: String(principal.keyId), label: principal.name, ip };
  return { kind: 'user', id: principal.session.userId, label: principal.session.email, ip };
}

/** What a request was found allowed to touch: its organization, its project (for project routes), the person's role there. */
export interface Grant {
  principal: Principal;
  organizationId: string;
  /** The person's role in the organization; null for an API key. */
  role: Role | null;
}
