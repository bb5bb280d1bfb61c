import { type EventType, formatNegotiated } from '@rtcscope/protocol/fields';
import { mediaSections, sdpOf, type StatsSnapshot } from '@rtcscope/sdk/recording';

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
  ondtlsstatechange: 'dtls-state',
};

/** The method (rtcstats) or log type (webrtc-internals) of the description a page set on its side. */
export const LOCAL_DESCRIPTION = 'setLocalDescription';

/** The API calls (rtcstats methods) that give a connection media of a kind, or a data channel. */
const MEDIA_CALLS = new Set(['addTransceiver', 'addTrack', 'addStream', 'ontrack', 'onaddstream', 'createDataChannel', 'ondatachannel']);
const DATA_CALLS = new Set(['createDataChannel', 'ondatachannel']);

/**
 * What each connection negotiated, as a monitor says it (`media-negotiated`): from the descriptions its
 * page set, or where the recording keeps no SDP (Jitsi's rtcstats writes descriptions empty) from the calls
 * that gave it media or a data channel. Each says the detail when the connection's sections changed
 * (renegotiations that change nothing, as an SFU's many do, say nothing), else null.
 */
export class Negotiations {
  private readonly last = new Map<string, string>();
  private readonly described = new Set<string>();
  private readonly kinds = new Map<string, string[]>();

  /** A description the page set on its side (`setLocalDescription`). */
  description(connection: string, description: unknown): string | null {
    const sdp = sdpOf(description);
    const sections = sdp === null ? [] : mediaSections(sdp);
    if (!sections.length) return null;
    this.described.add(connection);
    return this.changed(connection, formatNegotiated(sections));
  }

  /** A recorded API call: where it gives the connection a kind of media or a data channel, and no description said what it carries. */
  call(connection: string, method: string, value: unknown): string | null {
    if (!MEDIA_CALLS.has(method) || this.described.has(connection)) return null;
    const found = DATA_CALLS.has(method)
      ? ['application']
      : typeof value === 'string'
        ? [...value.matchAll(/(?:^|\s)(audio|video)(?=[:\s]|$)/g)].map((m) => m[1]!)
        : [];
    const kinds = this.kinds.get(connection) ?? [];
    for (const k of found) if (!kinds.includes(k)) kinds.push(k);
    this.kinds.set(connection, kinds);
    return kinds.length ? this.changed(connection, formatNegotiated(kinds.map((kind) => ({ kind, direction: null })))) : null;
  }

  private changed(connection: string, detail: string): string | null {
    if (this.last.get(connection) === detail) return null;
    this.last.set(connection, detail);
    return detail;
  }
}
