import { THRESHOLDS } from './thresholds.js';

/**
 * A stream's life: what it carried over the call, told the same way by the live diagnosis (which
 * neither judges nor scores a stream that is not active) and by the call page and API (which grey it).
 */

/**
 * - `never-active`: nothing ever came (an SFU's placeholder, a receive-only transceiver's unused sender, a
 *   feed that publishes nothing);
 * - `paused`: silent at its end while its participant still carried media the same way (muted or disabled
 *   by its sender, forwarded no more by the SFU, left behind on a connection the call moved from);
 * - `ended`: reported no more while the call or its connection went on (removed by a renegotiation; legacy stats go on
 *   reporting a removed SSRC's packets, not its bytes), or carried nothing since its connection ended
 *   (its page closed it, or its far end hung up);
 * - `active`: carried media to its end, or went silent with everything its participant had (an outage:
 *   a fault the issues tell, not a pause).
 */
export type StreamState = 'never-active' | 'active' | 'paused' | 'ended';

/** A sample carried media: payload or decoded frames (padding counts packets, not payload). */
export const carriesMedia = (kbps: number | null, fps: number | null): boolean => (kbps ?? 0) > 0 || (fps ?? 0) > 0;

/**
 * A sample carried no media: under `noMediaKbps`, or (a browser that stopped reporting its bytes, as a
 * removed SSRC's legacy stats do) no packet. A sample that says neither is not silent.
 */
export const isSilent = (kbps: number | null, packets: number | null): boolean =>
  kbps === null ? packets === 0 : kbps < THRESHOLDS.noMediaKbps;

/** Two streams' samples count as of the same moment within this, ms, or one and a half of their sampling intervals (a recording's may be 10 s). */
export const sameMomentWithin = (...intervalsMs: (number | null)[]): number =>
  Math.max(2000, 1.5 * Math.max(0, ...intervalsMs.map((i) => i ?? 0)));

/** A stream's samples over the call, as the read model sums them. */
export interface StreamFacts {
  id: number;
  participant: string;
  /** Its connection, whose other streams tell whether it still reported. */
  connection: number;
  direction: 'in' | 'out';
  firstActiveAt: number | null;
  lastActiveAt: number | null;
  /** Its last sample that said what came: its rate or its frame rate. */
  lastSaidAt: number | null;
  /** Its mean sampling interval, ms. */
  intervalMs: number | null;
  /** When its connection ended (`endsConnection`), null while it has not. */
  connectionEndedAt: number | null;
}

/** An event that says the connection's own page closed it (`pc.close()`). */
export const closedByPage = (type: string, detail: string | null): boolean => type === 'connection-state' && detail === 'closed';

/** An event that says the connection's far end hung up: its DTLS closed, as the page's own stats tell it. */
export const farEndHungUp = (type: string, detail: string | null): boolean => type === 'dtls-state' && detail === 'closed';

/**
 * An event that ends a connection's media: its page closed it, its far end hung up, or its DTLS failed
 * (a fault the diagnosis still judges, but nothing flows after it).
 */
export const endsConnection = (type: string, detail: string | null): boolean =>
  closedByPage(type, detail) || farEndHungUp(type, detail) || (type === 'dtls-state' && detail === 'failed');

/** How long after its call's newest sample a stream that reports no more has ended: a few of its intervals, at least 15 s. */
const endedAfterMs = (intervalMs: number | null) => Math.max(15_000, 3 * (intervalMs ?? 0));

/**
 * How long after its own connection's newest sample a stream that reports no more has ended: a browser
 * reports every stream of a connection in each of its samples (a paused one with nothing sent), so one
 * left out while the others go on was removed (a renegotiation: an SFU's subscriber whose publisher
 * left or joined again on a new connection).
 */
const removedAfterMs = (intervalMs: number | null) => Math.max(5000, 3 * (intervalMs ?? 0));

/** Each stream's state at the end of what was stored of its call (`StreamState`). */
export function streamStates(streams: readonly StreamFacts[]): Map<number, StreamState> {
  const callLast = Math.max(0, ...streams.map((s) => s.lastSaidAt ?? 0));
  const connectionLast = new Map<number, number>();
  for (const s of streams) connectionLast.set(s.connection, Math.max(connectionLast.get(s.connection) ?? 0, s.lastSaidAt ?? 0));
  const states = new Map<number, StreamState>();
  for (const s of streams) {
    if (s.lastActiveAt === null || s.lastSaidAt === null) states.set(s.id, 'never-active');
    else if (
      callLast - s.lastSaidAt > endedAfterMs(s.intervalMs) ||
      connectionLast.get(s.connection)! - s.lastSaidAt > removedAfterMs(s.intervalMs) ||
      (s.connectionEndedAt !== null && s.lastActiveAt <= s.connectionEndedAt + sameMomentWithin(s.intervalMs))
    )
      states.set(s.id, 'ended');
    else if (s.lastSaidAt - s.lastActiveAt > sameMomentWithin(s.intervalMs) && activeBeside(s, streams)) states.set(s.id, 'paused');
    else states.set(s.id, 'active');
  }
  return states;
}

/** Whether another stream of the participant's, the same way, carried media when this one last reported. */
function activeBeside(stream: StreamFacts, streams: readonly StreamFacts[]): boolean {
  return streams.some(
    (o) =>
      o !== stream &&
      o.participant === stream.participant &&
      o.direction === stream.direction &&
      o.lastActiveAt !== null &&
      stream.lastSaidAt! - o.lastActiveAt <= sameMomentWithin(stream.intervalMs, o.intervalMs),
  );
}
