import { counterDelta, kbpsFromBytes, lossPercent, meanPerItem, perSecond, sharePercent } from '@rtcscope/metrics';
import { type ConnectionValues, QUALITY_LIMITATIONS, type QualityLimitation, type StreamValues } from '@rtcscope/protocol/fields';
import { num, ofType, selectedCandidatePair, type StatEntry, type StatsSnapshot, str } from './stats.js';

export interface StreamIdentity {
  direction: 'in' | 'out';
  kind: 'audio' | 'video';
  ssrc: number;
  rid?: string;
  trackId?: string;
  codec?: string;
  implementation?: string;
  contentType?: 'screenshare';
}

export interface StreamSample {
  /** Stable within one peer connection: direction, kind, SSRC (simulcast layers have their own). */
  key: string;
  identity: StreamIdentity;
  values: Partial<StreamValues>;
}

export interface ConnectionSample {
  values: Partial<ConnectionValues>;
  localCandidateType?: string;
  localProtocol?: string;
  remoteCandidateType?: string;
  remoteProtocol?: string;
}

export interface NormalizedStats {
  streams: StreamSample[];
  connection: ConnectionSample | null;
}

/**
 * Turns two consecutive getStats snapshots of one peer connection into per-interval samples. A stream
 * seen for the first time, a counter that went backwards or a field the browser omits gives null for
 * the values that need a previous counter, never a negative value, NaN or a spike.
 */
export function normalize(prev: StatsSnapshot | undefined, cur: StatsSnapshot): NormalizedStats {
  const streams: StreamSample[] = [];
  for (const rtp of ofType(cur, 'inbound-rtp')) {
    const sample = inbound(rtp, prev?.get(rtp.id), cur, prev);
    if (sample) streams.push(sample);
  }
  for (const rtp of ofType(cur, 'outbound-rtp')) {
    const sample = outbound(rtp, prev?.get(rtp.id), cur, prev);
    if (sample) streams.push(sample);
  }
  return { streams, connection: connection(prev, cur) };
}

type Kind = 'audio' | 'video';

function kindOf(rtp: StatEntry): Kind | undefined {
  const kind = str(rtp, 'kind') ?? str(rtp, 'mediaType');
  return kind === 'audio' || kind === 'video' ? kind : undefined;
}

/** Counter helpers bound to one pair of entries of the same stream. */
function interval(prev: StatEntry | undefined, cur: StatEntry) {
  // A previous entry for another SSRC is a different stream: treat it as no previous at all.
  const same = prev !== undefined && prev.ssrc === cur.ssrc ? prev : undefined;
  const intervalMs = same ? cur.timestamp - same.timestamp : 0;
  const delta = (field: string) => (same ? counterDelta(num(same, field), num(cur, field)) : null);
  return {
    same,
    delta,
    intervalMs,
    kbps: (field: string) => kbpsFromBytes(delta(field), intervalMs),
    rate: (field: string) => perSecond(delta(field), intervalMs),
  };
}

function inbound(
  rtp: StatEntry,
  prev: StatEntry | undefined,
  snapshot: StatsSnapshot,
  prevSnapshot: StatsSnapshot | undefined,
): StreamSample | null {
  const kind = kindOf(rtp);
  const ssrc = num(rtp, 'ssrc');
  if (!kind || ssrc === undefined) return null;
  const t = interval(prev, rtp);
  const packets = t.delta('packetsReceived');
  // Lost packets may fall (duplicates), but not with the received ones: both falling is a reset.
  const lost = packets === null ? null : signedDelta(num(t.same, 'packetsLost'), num(rtp, 'packetsLost'));
  const remoteOut = ofSsrc(findBy(snapshot, 'remote-outbound-rtp', 'localId', rtp.id), ssrc);
  const prevRemoteOut = t.same && remoteOut ? ofSsrc(prevSnapshot?.get(remoteOut.id), ssrc) : undefined;
  const values: Partial<StreamValues> = {
    kbps: t.kbps('bytesReceived'),
    packets,
    packetsLost: lost === null ? null : Math.max(0, lost),
    lossPct: lossPercent(packets, lost),
    // The estimate is only updated as packets arrive: a stream that stopped would read its last jitter for ever.
    jitterMs: packets === 0 ? null : ms(num(rtp, 'jitter')),
    rttMs: ms(roundTrip(prevRemoteOut, remoteOut, 'roundTripTimeMeasurements', t.intervalMs)),
    nack: t.delta('nackCount'),
    pli: t.delta('pliCount'),
    fir: t.delta('firCount'),
    jitterBufferMs: ms(meanPerItem(t.delta('jitterBufferDelay'), t.delta('jitterBufferEmittedCount'))),
  };
  if (kind === 'audio') {
    const concealedPct = sharePercent(
      audibleConcealed(t.delta('concealedSamples'), t.delta('silentConcealedSamples')),
      t.delta('totalSamplesReceived'),
    );
    const events = t.delta('concealmentEvents');
    Object.assign(values, {
      concealedPct,
      // How long each gap the receiver filled lasted: one lost packet is ~20 ms, a burst of them one long gap.
      concealmentEventMs: events === 0 ? 0 : meanPerItem(concealedPct === null ? null : (concealedPct / 100) * t.intervalMs, events),
      audioLevel: num(rtp, 'audioLevel') ?? null,
    });
  }
  if (kind === 'video') {
    // Safari 14-era reports give the received resolution on the track object only.
    const track = snapshot.get(str(rtp, 'trackId') ?? '');
    Object.assign(values, {
      fps: frameRate(t.rate('framesDecoded'), t.same, rtp, 'framesDecoded', t.intervalMs),
      width: num(rtp, 'frameWidth') ?? num(track, 'frameWidth') ?? null,
      height: num(rtp, 'frameHeight') ?? num(track, 'frameHeight') ?? null,
      frames: t.delta('framesDecoded'),
      framesDropped: t.delta('framesDropped'),
      freezes: t.delta('freezeCount'),
      freezeMs: ms(t.delta('totalFreezesDuration')),
      qp: meanPerItem(t.delta('qpSum'), t.delta('framesDecoded')),
    });
  }
  return {
    key: `in:${kind}:${ssrc}`,
    identity: {
      direction: 'in',
      kind,
      ssrc,
      ...optional('trackId', str(rtp, 'trackIdentifier')),
      ...optional('codec', codecName(snapshot, rtp)),
      ...optional('implementation', str(rtp, 'decoderImplementation')),
      ...screenshare(rtp),
    },
    values,
  };
}

function outbound(
  rtp: StatEntry,
  prev: StatEntry | undefined,
  snapshot: StatsSnapshot,
  prevSnapshot: StatsSnapshot | undefined,
): StreamSample | null {
  const kind = kindOf(rtp);
  const ssrc = num(rtp, 'ssrc');
  if (!kind || ssrc === undefined) return null;
  const t = interval(prev, rtp);
  // A report about another SSRC (the old one, under a stats id a new stream took over) is not this stream's.
  const remoteIn = ofSsrc(findBy(snapshot, 'remote-inbound-rtp', 'localId', rtp.id), ssrc);
  const prevRemoteIn = t.same && remoteIn ? ofSsrc(prevSnapshot?.get(remoteIn.id), ssrc) : undefined;
  const fraction = num(remoteIn, 'fractionLost');
  const packets = t.delta('packetsSent');
  const packetsLost = prevRemoteIn ? counterDelta(num(prevRemoteIn, 'packetsLost'), num(remoteIn, 'packetsLost')) : null;
  // The last report's share stands for a second; over a recording's long poll, what the reports counted lost of what was sent.
  const lossPct =
    t.intervalMs >= COARSE_MS && packets && packetsLost !== null
      ? Math.min(100, (100 * packetsLost) / packets)
      : fraction === undefined
        ? null
        : Math.min(100, Math.max(0, fraction * 100));
  const values: Partial<StreamValues> = {
    kbps: t.kbps('bytesSent'),
    packets,
    packetsLost,
    lossPct,
    jitterMs: ms(num(remoteIn, 'jitter')),
    rttMs: ms(roundTrip(prevRemoteIn, remoteIn, 'roundTripTimeMeasurements', t.intervalMs)),
    nack: t.delta('nackCount'),
    pli: t.delta('pliCount'),
    fir: t.delta('firCount'),
  };
  const source = mediaSource(snapshot, rtp, kind);
  // The level of what the microphone captures: silence sent is not a fault of the network.
  if (kind === 'audio') values.audioLevel = num(source, 'audioLevel') ?? null;
  if (kind === 'video') {
    const prevSource = source ? prevSnapshot?.get(source.id) : undefined;
    const sourceMs = source && prevSource ? source.timestamp - prevSource.timestamp : 0;
    Object.assign(values, {
      fps: frameRate(t.rate('framesEncoded'), t.same, rtp, 'framesEncoded', t.intervalMs),
      // What the camera delivers: frames it gives and the encoder leaves out are the sender's CPU's doing.
      captureFps: frameRate(
        perSecond(counterDelta(num(prevSource, 'frames'), num(source, 'frames')), sourceMs),
        prevSource,
        source,
        'frames',
        sourceMs,
      ),
      width: num(rtp, 'frameWidth') ?? null,
      height: num(rtp, 'frameHeight') ?? null,
      frames: t.delta('framesEncoded'),
      qp: meanPerItem(t.delta('qpSum'), t.delta('framesEncoded')),
      encodeMs: ms(meanPerItem(t.delta('totalEncodeTime'), t.delta('framesEncoded'))),
      qualityLimitation: qualityLimitationCode(str(rtp, 'qualityLimitationReason')),
    });
  }
  const rid = str(rtp, 'rid');
  return {
    key: `out:${kind}:${ssrc}`,
    identity: {
      direction: 'out',
      kind,
      ssrc,
      ...optional('rid', rid),
      ...optional('trackId', str(source, 'trackIdentifier')),
      ...optional('codec', codecName(snapshot, rtp)),
      ...optional('implementation', str(rtp, 'encoderImplementation')),
      ...screenshare(rtp),
    },
    values,
  };
}

function connection(prev: StatsSnapshot | undefined, cur: StatsSnapshot): ConnectionSample | null {
  const pair = selectedCandidatePair(cur);
  if (!pair) return null;
  const prevPair = prev?.get(pair.id);
  const intervalMs = prevPair ? pair.timestamp - prevPair.timestamp : 0;
  const kbps = (field: string) => kbpsFromBytes(prevPair ? counterDelta(num(prevPair, field), num(pair, field)) : null, intervalMs);
  const local = cur.get(str(pair, 'localCandidateId') ?? '');
  const remote = cur.get(str(pair, 'remoteCandidateId') ?? '');
  return {
    values: {
      rttMs: ms(roundTrip(prevPair, pair, 'responsesReceived', intervalMs, 'currentRoundTripTime')),
      availableOutKbps: kbit(num(pair, 'availableOutgoingBitrate')),
      availableInKbps: kbit(num(pair, 'availableIncomingBitrate')),
      sentKbps: kbps('bytesSent'),
      receivedKbps: kbps('bytesReceived'),
    },
    ...optional('localCandidateType', str(local, 'candidateType')),
    ...optional('localProtocol', str(local, 'protocol')),
    ...optional('remoteCandidateType', str(remote, 'candidateType')),
    ...optional('remoteProtocol', str(remote, 'protocol')),
  };
}

function findBy(snapshot: StatsSnapshot, type: string, field: string, value: string): StatEntry | undefined {
  for (const e of snapshot.values()) if (e.type === type && e[field] === value) return e;
  return undefined;
}

/** Chromium's word for a shared screen's video (its other value, `realtime`, is any other video). */
function screenshare(rtp: StatEntry): { contentType?: 'screenshare' } {
  return str(rtp, 'contentType') === 'screenshare' ? { contentType: 'screenshare' } : {};
}

function codecName(snapshot: StatsSnapshot, rtp: StatEntry): string | undefined {
  const mime = str(snapshot.get(str(rtp, 'codecId') ?? ''), 'mimeType');
  return mime?.split('/')[1];
}

/**
 * Frames a second over the interval, from the frame counter. The browser's `framesPerSecond` is a snapshot
 * of its last second (Firefox said 0 over 10 s in which 242 frames were encoded; Chrome 12 for 7 frames at
 * a stream's start), taken only for a stream's first sample, which has no interval.
 */
function frameRate(
  counted: number | null,
  previous: StatEntry | undefined,
  entry: StatEntry | undefined,
  counter: string,
  intervalMs: number,
): number | null {
  if (previous !== undefined) return intervalMs < MIN_FRAME_INTERVAL_MS ? null : counted;
  const snapshot = num(entry, 'framesPerSecond');
  // Frames of the last second cannot outnumber the stream's frames so far (a decoder catching up on
  // its first frames reported 182 a second).
  const sofar = num(entry, counter);
  return snapshot === undefined ? null : sofar === undefined ? snapshot : Math.min(snapshot, sofar);
}

/**
 * Frames are whole: over a short interval (a last sample taken as the monitor closes, two polls of a
 * dump stamped milliseconds apart) one frame more or less is a rate off by tens. Such an interval
 * gives no frame rate.
 */
const MIN_FRAME_INTERVAL_MS = 400;

/**
 * The media source an outbound stream sends from: the one it names, or where it names none (Firefox)
 * the connection's only source of its kind; with several, none (which one is not known).
 */
function mediaSource(snapshot: StatsSnapshot, rtp: StatEntry, kind: Kind): StatEntry | undefined {
  const named = str(rtp, 'mediaSourceId');
  if (named !== undefined) return snapshot.get(named);
  const ofKind = ofType(snapshot, 'media-source').filter((e) => kindOf(e) === kind);
  return ofKind.length === 1 ? ofKind[0] : undefined;
}

/**
 * Over an interval this long, ms, a reading of one moment (the last RTCP report's round trip and loss, the
 * last ICE check's) no longer stands for the interval: a recording polled every 10 s is read by what was
 * measured over its 10 s. The SDK's own second keeps the newest reading.
 */
const COARSE_MS = 3000;

/**
 * A round trip, s: over a coarse interval the mean of those measured in it (`totalRoundTripTime` over the
 * measurements counted), else the newest.
 */
function roundTrip(
  prev: StatEntry | undefined,
  cur: StatEntry | undefined,
  measurements: string,
  intervalMs: number,
  newest = 'roundTripTime',
): number | undefined {
  const count = intervalMs >= COARSE_MS ? counterDelta(num(prev, measurements), num(cur, measurements)) : null;
  const total = count ? counterDelta(num(prev, 'totalRoundTripTime'), num(cur, 'totalRoundTripTime')) : null;
  return count && total !== null ? total / count : num(cur, newest);
}

/** The entry when it is about this SSRC (or does not say). */
function ofSsrc(entry: StatEntry | undefined, ssrc: number): StatEntry | undefined {
  const its = num(entry, 'ssrc');
  return its === undefined || its === ssrc ? entry : undefined;
}

/** Concealment a listener can hear: samples concealed during silence (where a browser reports them) are not. */
function audibleConcealed(concealed: number | null, silent: number | null): number | null {
  return concealed === null ? null : Math.max(0, concealed - (silent ?? 0));
}

/** packetsLost is signed in RTCP: duplicates can make it fall. A fall is real, not a reset. */
function signedDelta(prev: number | undefined, cur: number | undefined): number | null {
  return prev === undefined || cur === undefined ? null : cur - prev;
}

function qualityLimitationCode(reason: string | undefined): number | null {
  const code = QUALITY_LIMITATIONS.indexOf(reason as QualityLimitation);
  return code < 0 ? null : code;
}

const ms = (seconds: number | null | undefined): number | null => (seconds === undefined || seconds === null ? null : seconds * 1000);
const kbit = (bps: number | undefined): number | null => (bps === undefined ? null : bps / 1000);

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined || value === '' ? {} : { [key]: value }) as { [P in K]?: string };
}
