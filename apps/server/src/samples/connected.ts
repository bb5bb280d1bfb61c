/**
 * When a participant counts as connected: its peer connection, or ICE, said so. Summaries (set-up time)
 * read it from a call's events; alerts and insights ask the database with the same test.
 */
export const isConnectedEvent = (e: { type: string; detail: string | null }): boolean =>
  (e.type === 'connection-state' && e.detail === 'connected') ||
  (e.type === 'ice-connection-state' && (e.detail === 'connected' || e.detail === 'completed'));

/** SQL: whether participant `p` (a participant row's alias) has connected, by the same test. */
export const connectedSql = (p: string) =>
  `EXISTS (SELECT 1 FROM call_event e WHERE e.call_id = ${p}.call_id AND e.participant_id = ${p}.id
     AND ((e.type = 'connection-state' AND e.detail = 'connected') OR (e.type = 'ice-connection-state' AND e.detail IN ('connected', 'completed'))))`;

/** A participant that has not connected this long after joining (or that left before it did) failed to set up. */
export const SETUP_GRACE_S = 30;
