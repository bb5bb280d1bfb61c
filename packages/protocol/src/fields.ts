/**
 * The positional layout of samples on the wire. Declared once: the SDK encodes with it, the server
 * validates and decodes with it, the database columns and the spec (docs/wire-format.md) follow it.
 * Appending a field is compatible (old senders leave it out); reordering or removing one is a new version.
 */
/** 2: sample rows packed (`packed.ts`), as the SDK sends them since 2026-11-29; the server takes 1 as well. */
export const PROTOCOL_VERSION = 2;

export interface FieldSpec {
  /** camelCase name used in decoded objects and the REST API. */
  readonly name: string;
  /** snake_case column of the sample table. */
  readonly column: string;
  readonly unit: string;
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
  /** Decimal places the SDK keeps; more only costs bytes. */
  readonly decimals: number;
}

const f = (name: string, unit: string, max: number, integer: boolean, decimals = 0, min = 0): FieldSpec => ({
  name,
  column: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  unit,
  min,
  max,
  integer,
  decimals,
});

/**
 * A field of both tables: how many of the row's values were outside the table (a browser's
 * `audioLevel` of -1 before the first packet, a resolution of 0, NaN) and were set to null on the way —
 * by the SDK, the importer or the server, each adding what it set. It rides with its row, so a resent
 * row is counted once.
 */
export const OUT_OF_RANGE = 'outOfRange';
const outOfRange = () => f(OUT_OF_RANGE, 'values', 64, true);

/** One stream (inbound or outbound RTP, audio or video) over one sampling interval. */
export const STREAM_FIELDS = [
  f('kbps', 'kbit/s', 10_000_000, false, 1),
  f('packets', 'packets', 10_000_000, true),
  f('packetsLost', 'packets', 10_000_000, true),
  f('lossPct', '%', 100, false, 2),
  f('jitterMs', 'ms', 600_000, false, 1),
  f('rttMs', 'ms', 600_000, false, 1),
  f('fps', 'frames/s', 1000, false, 1),
  // A resolution of 0 is what Chrome reports before the first frame: not a size.
  f('width', 'px', 16_384, true, 0, 1),
  f('height', 'px', 16_384, true, 0, 1),
  f('frames', 'frames', 1_000_000, true),
  f('framesDropped', 'frames', 1_000_000, true),
  f('freezes', 'count', 100_000, true),
  f('nack', 'count', 10_000_000, true),
  f('pli', 'count', 1_000_000, true),
  f('fir', 'count', 1_000_000, true),
  f('qualityLimitation', 'code', 3, true),
  // Appended 2026-11-24 (the diagnosis' scores and detectors); SDKs before then leave them out.
  f('concealedPct', '%', 100, false, 2),
  f('jitterBufferMs', 'ms', 600_000, false, 1),
  f('freezeMs', 'ms', 600_000, false, 0),
  f('audioLevel', 'ratio', 1, false, 3),
  f('concealmentEventMs', 'ms', 600_000, false, 0),
  // Appended 2026-11-25: the camera's frame rate beside the encoder's tells a starved CPU from a network.
  f('captureFps', 'frames/s', 1000, false, 1),
  // Appended 2026-11-27: values set to null as outside this table.
  outOfRange(),
  // Appended 2026-11-28: the codec's mean quantizer per frame (VP8 0–127, VP9 and AV1 0–255, H.264 0–51)
  // says how coarse the picture was coded for its content, which its bits per pixel cannot (docs/scores.md).
  f('qp', 'quantizer', 255, false, 1),
  // Appended 2026-12-03: the encoder's time per frame tells a sender starved of CPU (tens of ms where a
  // frame takes a few) from one its network holds back (frames dropped, each encoded as fast as ever).
  f('encodeMs', 'ms', 600_000, false, 1),
] as const satisfies readonly FieldSpec[];

/** One peer connection's selected candidate pair over one sampling interval. */
export const CONNECTION_FIELDS = [
  f('rttMs', 'ms', 600_000, false, 1),
  f('availableOutKbps', 'kbit/s', 100_000_000, false, 1),
  f('availableInKbps', 'kbit/s', 100_000_000, false, 1),
  f('sentKbps', 'kbit/s', 100_000_000, false, 1),
  f('receivedKbps', 'kbit/s', 100_000_000, false, 1),
  // Appended 2026-11-27.
  outOfRange(),
] as const satisfies readonly FieldSpec[];

export type StreamFieldName = (typeof STREAM_FIELDS)[number]['name'];
export type ConnectionFieldName = (typeof CONNECTION_FIELDS)[number]['name'];
export type StreamValues = Record<StreamFieldName, number | null>;
export type ConnectionValues = Record<ConnectionFieldName, number | null>;

const positions = (specs: readonly FieldSpec[]) => new Map(specs.map((spec, k) => [spec.name, k]));
const STREAM_POSITIONS = positions(STREAM_FIELDS);
const CONNECTION_POSITIONS = positions(CONNECTION_FIELDS);

/** Where a stream field's value sits in a sample's values (add SAMPLE_HEAD.length for a wire row). */
export function streamFieldIndex(name: StreamFieldName): number {
  return STREAM_POSITIONS.get(name)!;
}

/** Where a connection field's value sits in a sample's values (add SAMPLE_HEAD.length for a wire row). */
export function connectionFieldIndex(name: ConnectionFieldName): number {
  return CONNECTION_POSITIONS.get(name)!;
}

/** Leading columns of every sample row: which stream or connection, its sequence, its time offset. */
export const SAMPLE_HEAD = ['index', 'seq', 'dtMs'] as const;

/** `qualityLimitationReason` as a small code, so the sample stays numeric. */
export const QUALITY_LIMITATIONS = ['none', 'cpu', 'bandwidth', 'other'] as const;
export type QualityLimitation = (typeof QUALITY_LIMITATIONS)[number];

export const EVENT_TYPES = [
  'connection-state',
  'ice-connection-state',
  'ice-gathering-state',
  'signaling-state',
  'ice-candidate-error',
  'candidate-pair-changed',
  'track-added',
  'track-ended',
  'track-muted',
  'track-unmuted',
  'connection-added',
  'connection-removed',
  'metadata',
  'dtls-state',
  'sender-encodings',
  'media-negotiated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const LIMITS = {
  /** Sample rows (stream + connection) in one batch; larger batches are refused whole. */
  maxBatchRows: 5000,
  maxBatchEvents: 500,
  maxStreamsPerBatch: 500,
  maxConnectionsPerBatch: 100,
  /** socket.io refuses larger frames before they are parsed. */
  maxMessageBytes: 1_000_000,
  /** How far a sample's time may be from its batch base, either side. */
  maxOffsetMs: 24 * 3600 * 1000,
  maxIdLength: 128,
  maxDetailLength: 2000,
  /** Metadata keys in one handshake or batch. */
  maxMetadataKeys: 32,
  /**
   * What a participant's and a call's stored metadata may grow to, merged from every handshake and
   * batch: keys, and bytes of its JSON text (32 keys with 100-character values take about 4.5 kB).
   */
  maxStoredMetadataKeys: 64,
  maxStoredMetadataBytes: 16_384,
} as const;

/** Rounds to the field's declared precision; the SDK does this so the wire carries no noise digits. */
export function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** Whether a value (already rounded to the field's precision) is one the field may hold. */
export function withinField(spec: FieldSpec, value: number): boolean {
  return Number.isFinite(value) && value >= spec.min && value <= spec.max && (!spec.integer || Number.isInteger(value));
}

/** Adds `count` values set to null to a row's `outOfRange` count (`values` laid out as `specs`). */
export function countOutOfRange(specs: readonly FieldSpec[], values: (number | null)[], count: number): void {
  if (count === 0) return;
  const k = specs.findIndex((s) => s.name === OUT_OF_RANGE);
  while (values.length <= k) values.push(null);
  values[k] = Math.min(specs[k]!.max, (values[k] ?? 0) + count);
}

/**
 * Encodes values in the declared order, each rounded to its precision; one outside the field table
 * (NaN, ±Infinity, negative, past its range) goes as null and is counted in the row's `outOfRange`.
 * Trailing nulls are dropped (audio rows stop after jitter and RTT); the decoder pads them back.
 */
export function encodeValues(specs: readonly FieldSpec[], values: Readonly<Record<string, number | null | undefined>>): (number | null)[] {
  let outside = 0;
  const out: (number | null)[] = specs.map((s) => {
    const v = values[s.name];
    if (v === null || v === undefined || s.name === OUT_OF_RANGE) return null;
    const rounded = roundTo(v, s.decimals);
    if (withinField(s, rounded)) return rounded;
    outside++;
    return null;
  });
  countOutOfRange(specs, out, outside);
  let end = out.length;
  while (end > 0 && out[end - 1] === null) end--;
  return out.slice(0, end);
}

const ID_CHARS = 'A-Za-z0-9._:@-';
/** What a call, participant or session id may hold. */
export const ID_PATTERN = `^[${ID_CHARS}]+$`;

/**
 * A published track's id as every end of a call through an SFU knows it (a stream's `trackId`), made from
 * the SFU's own id for it: Janus's room, feed and mid, LiveKit's track SID.
 */
export const sfuTrackId = {
  janus: (room: number | string, feed: number | string, mid: string) => `janus:${room}:${feed}:${mid}`,
  livekit: (trackSid: string) => `livekit:${trackSid}`,
};

/** The room, feed and mid a Janus track id (`sfuTrackId.janus`) names, or null for any other id. */
export function janusTrack(trackId: string | null): { room: string; feed: string; mid: string } | null {
  const match = /^janus:(.+):([^:]+):([^:]+)$/.exec(trackId ?? '');
  return match ? { room: match[1]!, feed: match[2]!, mid: match[3]! } : null;
}

/** The track SID a LiveKit track id (`sfuTrackId.livekit`) names, or null for any other id. */
export function liveKitTrack(trackId: string | null): string | null {
  return /^livekit:(.+)$/.exec(trackId ?? '')?.[1] ?? null;
}

/** An id made of a name from elsewhere (a recording's connection, a browser): each run of other characters becomes '-'. */
export const toId = (name: string): string => name.replace(new RegExp(`[^${ID_CHARS}]+`, 'g'), '-').slice(0, LIMITS.maxIdLength);

/** One encoding of a sender as the app set it (`RTCRtpSender.getParameters()`): null where it set none. */
export interface SenderEncoding {
  rid: string | null;
  active: boolean;
  /** bit/s */
  maxBitrate: number | null;
  maxFramerate: number | null;
  scaleResolutionDownBy: number | null;
}

/** What an app chose for one of its senders: its track's content hint and its encodings. */
export interface SenderSettings {
  kind: 'audio' | 'video';
  trackId: string;
  contentHint: string;
  encodings: SenderEncoding[];
}

const SETTINGS_HEAD = /^local (audio|video) (\S+)(?: hint=(\S*))?$/;
const num = (v: number | null) => (v === null ? '-' : String(v));
const parsed = (v: string | undefined): number | null => {
  if (v === undefined || v === '-') return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/**
 * A `sender-encodings` event's detail: `local video <track id> hint=<content hint>`, then per encoding
 * `; rid=<rid or -> active=<1|0> maxBitrate=<bit/s or -> maxFramerate=<fps or -> scale=<factor or ->`
 * (the track label as the track events give it, so the server ties it to the stream that carries it).
 */
export function formatSenderSettings(s: SenderSettings): string {
  const head = `local ${s.kind} ${s.trackId} hint=${s.contentHint.replace(/\s+/g, '')}`;
  const encodings = s.encodings.map(
    (e) =>
      `rid=${e.rid ?? '-'} active=${e.active ? 1 : 0} maxBitrate=${num(e.maxBitrate)} maxFramerate=${num(e.maxFramerate)} scale=${num(e.scaleResolutionDownBy)}`,
  );
  return [head, ...encodings].join('; ').slice(0, LIMITS.maxDetailLength);
}

/** A `sender-encodings` detail read back; null when it is not one (an old SDK's, a forged one). */
export function parseSenderSettings(detail: string | null): SenderSettings | null {
  const [head, ...parts] = (detail ?? '').split('; ');
  const h = SETTINGS_HEAD.exec(head ?? '');
  if (!h) return null;
  const encodings: SenderEncoding[] = [];
  for (const part of parts) {
    const f = Object.fromEntries(part.split(' ').map((kv) => kv.split('=') as [string, string]));
    if (f.active !== '0' && f.active !== '1') return null;
    encodings.push({
      rid: f.rid === undefined || f.rid === '-' ? null : f.rid,
      active: f.active === '1',
      maxBitrate: parsed(f.maxBitrate),
      maxFramerate: parsed(f.maxFramerate),
      scaleResolutionDownBy: parsed(f.scale),
    });
  }
  return { kind: h[1] as 'audio' | 'video', trackId: h[2]!, contentHint: h[3] ?? '', encodings };
}

/**
 * One media section (SDP m-line) a connection negotiated: its kind (`audio`, `video`, `application` for
 * data channels) and direction (`sendrecv`, `sendonly`, `recvonly`, `inactive`; null for data channels).
 */
export interface MediaSection {
  kind: string;
  direction: string | null;
}

const SECTION = /^([a-z]+)(?: (sendrecv|sendonly|recvonly|inactive))?$/;

/** A `media-negotiated` event's detail: each section as `<kind> <direction>`, in the description's order, joined by `, `. */
export function formatNegotiated(sections: readonly MediaSection[]): string {
  return sections
    .map((m) => (m.direction ? `${m.kind} ${m.direction}` : m.kind))
    .join(', ')
    .slice(0, LIMITS.maxDetailLength);
}

/** A `media-negotiated` detail read back; null when it is not one. */
export function parseNegotiated(detail: string | null): MediaSection[] | null {
  if (!detail) return null;
  const sections: MediaSection[] = [];
  for (const part of detail.split(', ')) {
    const m = SECTION.exec(part);
    if (!m) return null;
    sections.push({ kind: m[1]!, direction: m[2] ?? null });
  }
  return sections;
}

/**
 * Whether what a connection negotiated carries no audio or video: a data channel alone (an analytics
 * service's probe, a file transfer beside the call), not the call's media.
 */
export const dataOnly = (sections: readonly MediaSection[]): boolean =>
  sections.length > 0 && !sections.some((m) => m.kind === 'audio' || m.kind === 'video');
