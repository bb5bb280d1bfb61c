import type { EventType } from '@rtcscope/protocol/fields';
import type { StatsSnapshot } from '@rtcscope/sdk/recording';

/** What a recording's reader finds, in each connection's time order. */
export interface RecordingSink {
  /** The recording's browser, from its user agent. */
  userAgent(ua: string): void;
  /** The file says whose a connection is (an rtcscope export keeps a call's participants apart). */
  participant(connection: string, participant: string): void;
  /** What it returns is waited for before the reading goes on (batches are written as they fill). */
  snapshot(connection: string, ts: number, snapshot: StatsSnapshot): Promise<void>;
  event(connection: string | null, ts: number, type: EventType, detail?: string): Promise<void>;
}

/**
 * The events a recording names by the API's own event (rtcstats) or the log's type (webrtc-internals)
 * that a monitor reports, with the type it reports them as.
 */
export const RECORDED_EVENTS: Readonly<Record<string, EventType>> = {
  connectionstatechange: 'connection-state',
  onconnectionstatechange: 'connection-state',
  iceconnectionstatechange: 'ice-connection-state',
  oniceconnectionstatechange: 'ice-connection-state',
  icegatheringstatechange: 'ice-gathering-state',
  onicegatheringstatechange: 'ice-gathering-state',
  signalingstatechange: 'signaling-state',
  onsignalingstatechange: 'signaling-state',
  icecandidateerror: 'ice-candidate-error',
  onicecandidateerror: 'ice-candidate-error',
  ontrack: 'track-added',
};
