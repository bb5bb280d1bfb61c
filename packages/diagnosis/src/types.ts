/** What the diagnosis knows of a call: its streams and connections as declared, and their samples. */

export interface StreamMeta {
  id: number;
  participant: string;
  connectionId: number;
  direction: 'in' | 'out';
  kind: 'audio' | 'video';
  ssrc: number;
  /**
   * The track the stream carries (a sent stream's media source, a received one's msid): an SFU rewrites
   * SSRCs but keeps the msid, so this is what ties a subscriber's copy to its publisher's stream.
   */
  trackId?: string | null;
  codec: string | null;
  /** 'screenshare': a shared screen, which sends frames as its content changes (a still page: a frame or two a second). */
  contentType?: 'screenshare' | null;
}

export interface ConnectionMeta {
  id: number;
  participant: string;
  localCandidateType: string | null;
  localProtocol: string | null;
}

/** One sample: the values of STREAM_FIELDS (or CONNECTION_FIELDS) in order, null (or NaN, in a typed array) where unknown. */
export interface Sample {
  id: number;
  ts: number;
  v: ArrayLike<number | null>;
}

export interface DiagnosisEvent {
  ts: number;
  participant: string;
  connectionId: number | null;
  type: string;
  detail: string | null;
}

/** The event the server adds when a participant says goodbye (not on the wire: the batch's `bye`). */
export const PARTICIPANT_LEFT = 'participant-left';

export type Category = 'network' | 'endpoint' | 'media' | 'connectivity';
export type Severity = 'info' | 'warning' | 'critical';

/** 0: fine; 1: warning; 2: critical; null: this sample cannot tell (the state is kept). */
export type Level = 0 | 1 | 2 | null;

/** A detected problem, open (end null) or cleared. */
export interface Issue {
  type: string;
  category: Category;
  severity: Severity;
  participant: string;
  streamId: number | null;
  connectionId: number | null;
  direction: 'in' | 'out' | null;
  start: number;
  end: number | null;
  /** What caused it, in a sentence. */
  cause: string;
  /** The values that showed it when it was raised (and its worst since). */
  evidence: Record<string, number | string | null>;
  /** What the person reading it should look at. */
  check: string;
  /** The issue elsewhere in the call this one follows from (a receiver's loss from its sender's congested uplink), if any. */
  causedBy: Issue | null;
}
