import { connectionFieldIndex, type ConnectionFieldName, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import type { Detector, Subject } from './detector.js';
import type { AppLimit } from './app-limits.js';
import { carriesMedia } from './life.js';
import { THRESHOLDS } from './thresholds.js';
import type { Slot } from './hysteresis.js';
import type { ConnectionMeta, DiagnosisEvent, Sample, StreamMeta } from './types.js';

/** How much of a stream's past the detectors may look at: the longest window any of them uses. */
const HISTORY_S = 60;
/** Slots of the history ring: a sample a second, with room for a few more. */
const SLOTS = 64;

/** A sample's value as the detectors take it: null where unknown, however the sample says so. */
const known = (x: number | null | undefined): number | null => (x === null || x === undefined || Number.isNaN(x) ? null : x);

/** A sample's values with its lost packets and loss share unknown. */
function withoutLoss(v: ArrayLike<number | null>): (number | null)[] {
  const copy = Array.from(v);
  copy[streamFieldIndex('packetsLost')] = null;
  copy[streamFieldIndex('lossPct')] = null;
  return copy;
}

/** The fields whose past the detectors look at; of the others, only the newest sample is kept. */
const TRACKED = ['kbps', 'fps', 'lossPct', 'rttMs', 'packets', 'packetsLost', 'nack', 'jitterMs', 'jitterBufferMs'] as const;
export type TrackedField = (typeof TRACKED)[number];

/**
 * A stream as the detectors see it: what it is, its newest sample, and the recent past of the fields
 * they look back on, in fixed rings of numbers (a node keeps tens of thousands of streams: a minute of
 * their samples as objects would keep the garbage collector busy).
 */
export class StreamView {
  /** Whom this stream's observations are about. */
  readonly subject: Subject;
  latest: Sample | undefined;
  /** When it last began carrying media: its first sample, its first after a silence (THRESHOLDS.restartAfterS), or its sender's track unmuted. */
  first: number | null = null;
  /**
   * Whether it never carried media though its samples said what came: no payload or frames in any. An SFU's
   * placeholder, a receive-only transceiver's unused sender, a feed that publishes nothing carry none
   * (padding has no payload, though its packets count). A stream whose samples never said is not taken as empty.
   */
  get neverCarried(): boolean {
    return this.saidRate && !this.carried;
  }
  private carried = false;
  private saidRate = false;
  private silentSince: number | null = null;
  private readonly times = new Float64Array(SLOTS);
  private readonly rings = TRACKED.map(() => new Float64Array(SLOTS).fill(Number.NaN));
  private count = 0;
  /** The detectors that judge this stream, and each one's state for it (the engine's). */
  judges: { detector: Detector; slot: Slot }[] = [];
  /** Judged and scored by this diagnosis; false for a stream another one judges (the engine's declareStreamElsewhere). */
  judged = false;
  /** A sent stream's limits as its app set them (its sender's encodings), null where it set none. */
  appLimit: AppLimit | null = null;
  /** A sent stream whose local track its app stopped (the SDK's `track-ended`): it sends nothing of a camera or microphone. */
  trackStopped = false;
  /** A sent stream's other simulcast layers: its participant's other sent streams of the same track (the engine's). */
  layers: readonly StreamView[] = [];

  constructor(public meta: StreamMeta) {
    this.subject = { participant: meta.participant, streamId: meta.id, connectionId: meta.connectionId, direction: meta.direction };
  }

  /** The time between its newest two samples, ms (null before the second): the interval its browser or recording samples at. */
  interval: number | null = null;

  /**
   * Keeps a sample newer than the newest (as `latest`); an older or repeated one (a resend) is ignored.
   * The packets a stream counts lost as it resumes after a silence are the silence's gap, not loss: the
   * sequence numbers its sender or the SFU went on with while nothing was forwarded to this receiver (a
   * Jitsi call moving from the SFU to P2P and back counted 211 lost with 12 received in its first 2 s, and
   * none after). That sample keeps its loss unknown; an outage's own loss is told by what it silenced.
   */
  add(sample: Sample): void {
    if (this.latest && sample.ts <= this.latest.ts) return;
    if (this.latest) this.interval = sample.ts - this.latest.ts;
    this.first ??= sample.ts;
    const kbps = known(sample.v[streamFieldIndex('kbps')]);
    this.saidRate ||= kbps !== null || known(sample.v[streamFieldIndex('packets')]) !== null;
    this.carried ||= carriesMedia(kbps, known(sample.v[streamFieldIndex('fps')]));
    if (this.noteRestart(sample) && this.meta.direction === 'in' && (known(sample.v[streamFieldIndex('packetsLost')]) ?? 0) > 0) {
      sample = { ...sample, v: withoutLoss(sample.v) };
    }
    this.latest = sample;
    const slot = this.count++ % SLOTS;
    this.times[slot] = sample.ts;
    for (let k = 0; k < TRACKED.length; k++) this.rings[k]![slot] = known(sample.v[streamFieldIndex(TRACKED[k]!)]) ?? Number.NaN;
  }

  /** It begins carrying media again at `ts`, as its sender says (a track unmuted), whatever its rate showed. */
  restart(ts: number): void {
    if (this.first !== null) this.first = ts;
  }

  /** Notes a silence and the end of one; true where this sample resumes the stream after a long one. */
  private noteRestart(sample: Sample): boolean {
    const kbps = known(sample.v[streamFieldIndex('kbps')]);
    if (kbps === null) return false;
    if (kbps < THRESHOLDS.noMediaKbps) {
      this.silentSince ??= sample.ts;
      return false;
    }
    const resumed = this.silentSince !== null && sample.ts - this.silentSince >= THRESHOLDS.restartAfterS * 1000;
    if (resumed) this.first = sample.ts;
    this.silentSince = null;
    return resumed;
  }

  /** A field of the newest sample (or of `sample`). */
  value(field: StreamFieldName, sample: Sample | undefined = this.latest): number | null {
    return known(sample?.v[streamFieldIndex(field)]);
  }

  /** Calls `visit` with each slot of the samples over the last `seconds` (at most HISTORY_S), newest first. */
  private walk(seconds: number, visit: (slot: number) => void): void {
    if (!this.latest) return;
    const from = this.latest.ts - Math.min(seconds, HISTORY_S) * 1000;
    for (let n = 0; n < Math.min(this.count, SLOTS); n++) {
      const slot = (this.count - 1 - n) % SLOTS;
      if (this.times[slot]! <= from) break;
      visit(slot);
    }
  }

  /** Calls `visit` with each known value of the field over the last `seconds`, newest first. */
  private each(field: TrackedField, seconds: number, visit: (v: number) => void): void {
    const ring = this.rings[TRACKED.indexOf(field)]!;
    this.walk(seconds, (slot) => {
      const v = ring[slot]!;
      if (!Number.isNaN(v)) visit(v);
    });
  }

  /** Calls `visit` with each sample's values of two fields over the last `seconds` where both are known, newest first. */
  eachPair(a: TrackedField, b: TrackedField, seconds: number, visit: (x: number, y: number) => void): void {
    const [ra, rb] = [this.rings[TRACKED.indexOf(a)]!, this.rings[TRACKED.indexOf(b)]!];
    this.walk(seconds, (slot) => {
      const [x, y] = [ra[slot]!, rb[slot]!];
      if (!Number.isNaN(x) && !Number.isNaN(y)) visit(x, y);
    });
  }

  /** Of the field's known values over the last `seconds`: how many there are, and how many pass `test`. */
  tally(field: TrackedField, seconds: number, test: (v: number) => boolean): { known: number; passing: number } {
    let known = 0;
    let passing = 0;
    this.each(field, seconds, (v) => {
      known++;
      if (test(v)) passing++;
    });
    return { known, passing };
  }

  /**
   * How often the field's known values over the last `seconds` pass from one state to the other, in time
   * order: `state` says which of two a value is in, or null for neither (such values are skipped).
   */
  changes(field: TrackedField, seconds: number, state: (v: number) => boolean | null): number {
    let changes = 0;
    let last: boolean | null = null;
    this.each(field, seconds, (v) => {
      const now = state(v);
      if (now === null) return;
      if (last !== null && now !== last) changes++;
      last = now;
    });
    return changes;
  }

  /** The mean of the field's known values over the last `seconds`; null without any. */
  mean(field: TrackedField, seconds: number): number | null {
    let [sum, n] = [0, 0];
    this.each(field, seconds, (v) => {
      sum += v;
      n++;
    });
    return n ? sum / n : null;
  }

  peak(field: TrackedField, seconds: number): number | null {
    let peak: number | null = null;
    this.each(field, seconds, (v) => {
      if (peak === null || v > peak) peak = v;
    });
    return peak;
  }

  low(field: TrackedField, seconds: number): number | null {
    let low: number | null = null;
    this.each(field, seconds, (v) => {
      if (low === null || v < low) low = v;
    });
    return low;
  }

  /** Seconds since the stream began carrying media (see `first`; 0 before any sample). */
  age(sample: Sample | undefined = this.latest): number {
    return sample && this.first !== null ? (sample.ts - this.first) / 1000 : 0;
  }
}

export class ConnectionView {
  latest: Sample | undefined;
  /** The time between its newest two samples, ms (null before the second), as a stream's `interval`. */
  interval: number | null = null;
  constructor(readonly meta: ConnectionMeta) {}

  /** Keeps a sample newer than the newest. */
  add(sample: Sample): void {
    if (this.latest && sample.ts <= this.latest.ts) return;
    if (this.latest) this.interval = sample.ts - this.latest.ts;
    this.latest = sample;
  }

  value(field: ConnectionFieldName): number | null {
    return known(this.latest?.v[connectionFieldIndex(field)]);
  }

  /**
   * What the connection sends as a share of what the browser estimates its uplink carries
   * (`availableOutgoingBitrate`); null where either is unknown. Far under 1, what holds the encoder back is
   * not the uplink (Chrome also cuts the encoder's rate while its feedback is late or lost on the way back);
   * near or over 1, the sender is held to its estimate (THRESHOLDS.congestion).
   */
  estimateUsed(): number | null {
    const [sent, available] = [this.value('sentKbps'), this.value('availableOutKbps')];
    return sent === null || !available ? null : sent / available;
  }

  /** The browser estimates its uplink carries `roomFactor` times what the connection sends: whatever holds a sender back, it is not its uplink. */
  hasRoom(): boolean {
    return (this.estimateUsed() ?? 1) <= 1 / THRESHOLDS.congestion.roomFactor;
  }
}

/** The whole call as the detectors that compare participants see it. */
export interface CallView {
  streams: ReadonlyMap<number, StreamView>;
  connections: ReadonlyMap<number, ConnectionView>;
  /** Every event so far of a participant's connection, by connection id. */
  events: readonly DiagnosisEvent[];
  /** Participants who said goodbye and sent nothing since: their last samples are not a current state. */
  left: ReadonlySet<string>;
  /** Connections their page closed (`pc.close()`): nothing flows on them any more, by the page's choice. */
  closed: ReadonlySet<number>;
  /** Connections whose far end hung up (their DTLS closed, as a receiver's own stats say): nothing comes on them any more, by the far side's choice. */
  hungUp: ReadonlySet<number>;
  /** Per participant, the kinds of its own tracks it has muted. */
  muted: ReadonlyMap<string, ReadonlySet<string>>;
  /** Which sent streams each received stream copies. */
  pairing: Pairing;
  /** Connections that negotiated no audio or video, by id: a data channel alone, not the call's media (`dataOnly`). */
  dataOnly: ReadonlySet<number>;
}

/**
 * Each received stream with the sent streams it copies (`sendersOf`), worked out once for as long as the
 * call's streams stay as declared: every detector that compares participants asks it every second of
 * every call, and matching every stream against every other on each ask cost more than their judgement.
 */
export class Pairing {
  private pairs: Map<StreamView, StreamView[]> | null = null;

  constructor(private readonly streams: ReadonlyMap<number, StreamView>) {}

  /** A stream was declared, or declared again as something else (its track named, say). */
  changed(): void {
    this.pairs = null;
  }

  /** Every received stream, with the sent streams it copies. */
  all(): ReadonlyMap<StreamView, readonly StreamView[]> {
    if (this.pairs) return this.pairs;
    const streams = [...this.streams.values()];
    this.pairs = new Map(streams.filter((r) => r.meta.direction === 'in').map((r) => [r, sendersOf(streams, r)]));
    return this.pairs;
  }

  /** The sent streams a received stream is the far end of: of those it copies, the layer it is sent (`forwardedOf`). */
  forwardedTo(receiver: StreamView): readonly StreamView[] {
    return forwardedOf(this.all().get(receiver) ?? [], receiver);
  }
}

/**
 * A stream whose end has gone (left the call, closed the connection, or, received, its far end hung up):
 * its last values are not a current state, and what no longer flows on it is no fault.
 */
export const gone = (call: CallView, s: StreamView): boolean =>
  call.left.has(s.meta.participant) ||
  call.closed.has(s.meta.connectionId) ||
  (s.meta.direction === 'in' && call.hungUp.has(s.meta.connectionId));

/** A sent stream its sender stopped by choice: gone, or its kind muted. */
export const stoppedByChoice = (call: CallView, sender: StreamView): boolean =>
  gone(call, sender) || call.muted.get(sender.meta.participant)?.has(sender.meta.kind) === true;

/**
 * Each sent stream with each stream that receives it at another participant: both ends of one media
 * flow, which only the server sees (`sendersOf`).
 */
export function* flows(call: CallView): Generator<{ sender: StreamView; receiver: StreamView }> {
  for (const [receiver, senders] of call.pairing.all()) for (const sender of forwardedOf(senders, receiver)) yield { sender, receiver };
}

/**
 * Of the sent streams a received one copies, the one it is the far end of: where one participant sends
 * a track in several layers (simulcast, LiveKit's default: 180p, 360p and 720p), the SFU forwards each
 * subscriber one of them — by its tile's size and its bandwidth — so the copy is judged against the layer
 * whose frame height is nearest its own, not against the others (a 180p tile of a 720p camera is the
 * SFU's choice, not lost quality). A layer that reports no height (paused: nobody is sent it) is none of
 * them; every sender is kept while the copy's height or all of theirs are unknown.
 */
function forwardedOf(senders: readonly StreamView[], receiver: StreamView): readonly StreamView[] {
  const height = receiver.value('height');
  if (senders.length < 2 || height === null || new Set(senders.map((s) => s.meta.participant)).size > 1) return senders;
  const known = senders.flatMap((s) => {
    const h = s.value('height');
    return h === null ? [] : [{ s, distance: Math.abs(h - height) }];
  });
  if (!known.length) return senders;
  return [known.reduce((best, k) => (k.distance < best.distance ? k : best)).s];
}

/**
 * The sent streams a received stream is the far end of: the other participants' streams of its SSRC
 * (peer to peer), or where none has it (an SFU gave its copy an SSRC of its own), those of its track, by
 * the msid the SFU kept. A simulcast sender's layers share a track: each is returned.
 */
export function sendersOf<S extends { meta: StreamMeta }>(streams: Iterable<S>, receiver: S): S[] {
  const others = [...streams].filter(
    (s) => s.meta.direction === 'out' && s.meta.kind === receiver.meta.kind && s.meta.participant !== receiver.meta.participant,
  );
  const bySsrc = others.filter((s) => s.meta.ssrc === receiver.meta.ssrc);
  const track = receiver.meta.trackId;
  return bySsrc.length || !track ? bySsrc : others.filter((s) => s.meta.trackId === track);
}

/** Whether a received stream came through an SFU: it has senders, and none of them its SSRC. */
export function throughSfu<S extends { meta: StreamMeta }>(streams: Iterable<S>, receiver: S): boolean {
  return copiedThroughSfu(sendersOf(streams, receiver), receiver);
}

/** Whether a received stream with these senders (`sendersOf`) came through an SFU. */
export function copiedThroughSfu<S extends { meta: StreamMeta }>(senders: readonly S[], receiver: S): boolean {
  return senders.length > 0 && senders.every((s) => s.meta.ssrc !== receiver.meta.ssrc);
}
