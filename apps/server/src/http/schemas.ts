import { ApiError } from '@rtcscope/protocol';
import { Type } from '@sinclair/typebox';

/**
 * What every `/api/v1` route may answer besides its own: a refused request, not signed in (no session,
 * no valid key), not allowed (role, scope, CSRF token), too many requests, the database away for a moment.
 */
export const ANSWERS = { 400: ApiError, 401: ApiError, 403: ApiError, 429: ApiError, 503: ApiError };
/** What a route with an id in its path may answer as well: no such thing in this project, or an id too long for a path. */
export const ID_ANSWERS = { ...ANSWERS, 404: ApiError, 414: ApiError };

/** A call, by the id the SDK was given. */
export const CallParams = Type.Object({ callId: Type.String({ minLength: 1, maxLength: 128 }) });
/** A key, campaign, run or agent by its number: JSON numbers are exact up to 2^53, far beyond any id made. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

/** A uuid as PostgreSQL writes it (projects, organizations, people, rules, endpoints). */
export const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'a uuid' });
