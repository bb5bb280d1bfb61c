/**
 * When a participant counts as connected: its peer connection, or ICE, said so. Summaries (set-up time)
 * read it from a call's events; alerts and insights ask the database with the same test.
 */
export const isConnectedEvent = (e: { type: string; detail: string | null }): boolean =>
  (e.type === 'connection-state' && e.detail === 'connected') ||
  (e.type === 'ice-connection-state' && (e.detail === 'connected' || e.detail === 'completed'));

/**
 * SQL: whether event `e`'s connection carries no audio or video (`dataOnly` in @rtcscope/protocol, of what
 * it last negotiated), a data channel alone whose set-up is not the call's: an analytics service's probe
 * in the page, connecting first or never, tells nothing of the participant's set-up. summaries.int.test.ts
 * holds it to `dataOnly`.
 */
export const dataOnlySql = (e: string) =>
  `coalesce((SELECT n.detail !~ '(^|, )(audio|video)( |,|$)' FROM call_event n
             WHERE n.call_id = ${e}.call_id AND n.connection_id = ${e}.connection_id AND n.type = 'media-negotiated'
             ORDER BY n.ts DESC, n.id DESC LIMIT 1), false)`;

/** SQL: whether participant `p` (a participant row's alias) has connected, by the same test, on a connection of the call's media. */
export const connectedSql = (p: string) =>
  `EXISTS (SELECT 1 FROM call_event e WHERE e.call_id = ${p}.call_id AND e.participant_id = ${p}.id
     AND ((e.type = 'connection-state' AND e.detail = 'connected') OR (e.type = 'ice-connection-state' AND e.detail IN ('connected', 'completed')))
     AND NOT ${dataOnlySql('e')})`;

/** A participant that has not connected this long after joining (or that left before it did) failed to set up. */
export const SETUP_GRACE_S = 30;
