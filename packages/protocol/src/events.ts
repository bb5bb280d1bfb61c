import type { LabChanged, LabProgress, LiveActivity, LivePoints, LiveSubscribe } from './api.js';
import type { AlertNotification } from './alerts.js';
import type { LiveDiagnosis } from './diagnosis.js';
import type { Batch, IngestAck, PackedBatch } from './messages.js';
import type { IceServersAnswer, PrecallReport, PrecallResultAck } from './precall.js';

/**
 * What each side says on the socket.io namespaces, as socket.io event maps used by both ends (the
 * lab agent's `/agent` is declared with its messages, in `@rtcscope/experiments`). The server checks
 * every payload it receives, whatever the map says: its handlers take `unknown`.
 */

/** `/ingest`: an SDK sends batches and is answered with acks (docs/wire-format.md), and may ask for TURN credentials. */
export interface IngestClientEvents {
  batch: (batch: Batch | PackedBatch, ack: (answer: IngestAck) => void) => void;
  /** The project's TURN servers with credentials that expire, for a connection of this client's (the pre-call test). */
  iceServers: (ack: (answer: IceServersAnswer) => void) => void;
  /** A pre-call test's result, from a session whose handshake said `kind: 'precall'`; its samples came as batches. */
  precallResult: (report: PrecallReport, ack: (answer: PrecallResultAck) => void) => void;
}
/** `/ingest`: the server sends nothing but acks. */
export type IngestServerEvents = Record<never, never>;

/** `/live`: a dashboard subscribes to its project's calls list, one call, or the lab. */
export interface LiveClientEvents {
  /** Answered (if asked) once the subscription holds, on every node: no point is missed after it. */
  subscribe: (what: LiveSubscribe, ack?: (answer: { ok: boolean }) => void) => void;
  unsubscribe: (what: LiveSubscribe) => void;
}
/** `/live`: what the server pushes to the rooms a dashboard subscribed to. */
export interface LiveServerEvents {
  /** A watched call's points, as soon as their batch is committed. */
  points: (points: LivePoints) => void;
  /** A watched call's issues raised, worsened or cleared, and windows scored, as the diagnosis finds them. */
  diagnosis: (change: LiveDiagnosis) => void;
  /** The calls list: a call is still active. */
  activity: (activity: LiveActivity) => void;
  /** The calls list: a call started, ended, or a participant joined or left. */
  'calls-changed': (change: { callId: string }) => void;
  /** A watched call: the same, for its page. */
  'call-changed': (change: { callId: string }) => void;
  'lab-changed': (change: LabChanged) => void;
  'lab-progress': (progress: LabProgress) => void;
  /** Alerts: a rule fired or resolved, or a test was sent. */
  notification: (notification: AlertNotification) => void;
}
