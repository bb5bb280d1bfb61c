import type { LabSet } from '@rtcscope/experiments';
import { carriesMedia, endsConnection, type StreamFacts, type StreamState, streamStates } from '@rtcscope/diagnosis';
import { fairnessOverTime, meanRoles, participantRates, type RateObservation } from '@rtcscope/metrics';
import {
  type CallDetail,
  type CallEvent,
  connectionFieldIndex,
  type LivePoints,
  type Point,
  type Series,
  STREAM_FIELDS,
  streamFieldIndex,
  type StreamFieldName,
} from '@rtcscope/protocol';

export interface StreamMeta {
  id: number;
  participantId: string;
  connectionId: number;
  direction: 'in' | 'out';
  kind: 'audio' | 'video';
  ssrc: number;
  rid: string | null;
  /** A received stream's sender, where the server matched one. */
  from: string | null;
  codec: string | null;
  label: string;
}

export interface ConnectionMeta {
  id: number;
  participantId: string;
  key: string;
  label: string;
}

/** A call's streams, connections, points and events as the call page holds them, live or past. */
export interface CallData {
  /** Participants in the order this page first saw them: the order their colours are given in. */
  participants: string[];
  streams: Map<number, StreamMeta>;
  connections: Map<number, ConnectionMeta>;
  streamPoints: Map<number, Point[]>;
  connectionPoints: Map<number, Point[]>;
  events: CallEvent[];
  bucketMs: number;
}

const ARROW = { out: '↑', in: '↓' } as const;

/** `p1 ↓ video`; one of several such streams by its layer, its sender (who receives whom), or its SSRC. */
function streamLabel(
  participantId: string,
  s: { direction: 'in' | 'out'; kind: string; rid: string | null; ssrc: number; from: string | null },
  multiple: boolean,
) {
  const which = s.rid ? ` ${s.rid}` : !multiple ? '' : s.from ? ` from ${s.from}` : ` ${s.ssrc}`;
  return `${participantId} ${ARROW[s.direction]} ${s.kind}${which}`;
}

export function fromApi(detail: CallDetail, series: Series, events: CallEvent[]): CallData {
  const data: CallData = {
    participants: detail.participants.map((p) => p.id),
    streams: new Map(),
    connections: new Map(),
    streamPoints: new Map(),
    connectionPoints: new Map(),
    events: [...events],
    bucketMs: series.bucketMs,
  };
  for (const p of detail.participants) {
    const multipleConnections = p.connections.length > 1;
    for (const c of p.connections) {
      data.connections.set(c.id, { id: c.id, participantId: p.id, key: c.key, label: multipleConnections ? `${p.id} ${c.key}` : p.id });
      for (const s of c.streams) addStream(data, { ...s, connectionId: c.id }, p.id);
    }
  }
  // Points from the API carry the fields the page asked for; live points and the charts use all.
  const at = series.fields.map((name) => streamFieldIndex(name as StreamFieldName));
  for (const pt of series.streams) {
    const v: (number | null)[] = new Array<number | null>(STREAM_FIELDS.length).fill(null);
    at.forEach((k, j) => (v[k] = pt.v[j] ?? null));
    push(data.streamPoints, { ...pt, v });
  }
  for (const pt of series.connections) push(data.connectionPoints, pt);
  return data;
}

/** Adds a stream, and names it and the streams of its kind and direction apart once there are several. */
function addStream(data: CallData, s: Omit<StreamMeta, 'label' | 'participantId'>, participantId: string) {
  const siblings = [...data.streams.values()].filter(
    (o) => o.participantId === participantId && o.direction === s.direction && o.kind === s.kind && o.id !== s.id,
  );
  data.streams.set(s.id, { ...s, participantId, label: streamLabel(participantId, s, siblings.length > 0) });
  for (const o of siblings) o.label = streamLabel(participantId, o, true);
}

function push(map: Map<number, Point[]>, pt: Point) {
  const list = map.get(pt.id);
  if (!list) map.set(pt.id, [pt]);
  else if ((list.at(-1)?.ts ?? -Infinity) < pt.ts) list.push(pt);
  else if (!list.some((p) => p.ts === pt.ts))
    list.splice(
      list.findIndex((p) => p.ts > pt.ts),
      0,
      pt,
    );
}

/**
 * Adds a live push; a point seen before (a resend) is ignored. Returns false when the push refers to
 * streams or connections this page has not seen declared (it loaded while they were announced): the
 * caller then reloads the call.
 */
export function applyLive(data: CallData, live: LivePoints): boolean {
  if (!data.participants.includes(live.participantId)) data.participants.push(live.participantId);
  for (const c of live.newConnections) {
    if (!data.connections.has(c.id))
      data.connections.set(c.id, { id: c.id, participantId: c.participantId, key: c.key, label: c.participantId });
  }
  for (const s of live.newStreams) if (!data.streams.has(s.id)) addStream(data, s, live.participantId);
  for (const pt of live.streams) push(data.streamPoints, pt);
  for (const pt of live.connections) push(data.connectionPoints, pt);
  data.events.push(...live.events);
  return live.streams.every((p) => data.streams.has(p.id)) && live.connections.every((p) => data.connections.has(p.id));
}

export type Row = { ts: number } & Record<string, number | null>;

/**
 * What a line is, drawn by its dash pattern (the colour is its participant's): sent and received media,
 * audio apart from video, a connection's candidate pair, a value the lab set.
 */
export type LineKind = 'sent' | 'received' | 'sent audio' | 'received audio' | 'pair' | 'set';

export interface ChartSeries {
  key: string;
  participantId: string;
  line: LineKind;
  /** A stream's line that is not active (it carried nothing, paused or ended): drawn faded, its state named. */
  state?: StreamState;
}

const lineOf = (direction: 'in' | 'out', kind: string): LineKind =>
  `${direction === 'out' ? 'sent' : 'received'}${kind === 'audio' ? ' audio' : ''}` as LineKind;

/** Colour-blind-safe (Okabe–Ito), far apart from each other on white; a ninth participant starts over. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7f3c8d', '#3f3f3f'];

/** Each participant's colour, the same in every panel and stable as others join (by first appearance). */
export function participantColors(participants: readonly string[]): Map<string, string> {
  return new Map(participants.map((id, k) => [id, PALETTE[k % PALETTE.length]!]));
}

export interface Chart {
  rows: Row[];
  series: ChartSeries[];
}

/** Rows keyed by time rounded to the bucket, so participants sampled a few ms apart share a row. */
class RowBuilder {
  private readonly rows = new Map<number, Row>();
  readonly series = new Map<string, ChartSeries>();
  constructor(private readonly bucketMs: number) {}

  add(ts: number, key: string, participantId: string, line: LineKind, value: number | null) {
    if (value === null) return;
    const t = Math.round(ts / this.bucketMs) * this.bucketMs;
    let row = this.rows.get(t);
    if (!row) {
      row = { ts: t } as Row;
      this.rows.set(t, row);
    }
    row[key] = value;
    if (!this.series.has(key)) this.series.set(key, { key, participantId, line });
  }

  build(): Chart {
    const rows = [...this.rows.values()].sort((a, b) => a.ts - b.ts);
    for (const key of this.series.keys()) bridgeShortGaps(rows, key, BRIDGED_BUCKETS * this.bucketMs);
    return { rows, series: [...this.series.values()].sort((a, b) => a.key.localeCompare(b.key)) };
  }
}

/**
 * The longest time without a value a measured line is drawn across, in sampling intervals: a sample
 * that came late or fell in the next interval. Longer, the stream paused, stopped or went unreported,
 * and its line ends there (and starts again when it does), rather than joining the two sides.
 */
const BRIDGED_BUCKETS = 3;

/** Fills a series' rows inside a gap of at most `maxGapMs` on the straight line between its two sides. */
function bridgeShortGaps(rows: Row[], key: string, maxGapMs: number): void {
  let last: Row | null = null;
  let lastIndex = -1;
  rows.forEach((row, i) => {
    const v = row[key];
    if (typeof v !== 'number') return;
    if (last !== null && i - lastIndex > 1 && row.ts - last.ts <= maxGapMs) {
      const [t0, v0] = [last.ts, last[key] as number];
      for (let j = lastIndex + 1; j < i; j++) rows[j]![key] = v0 + ((v - v0) * (rows[j]!.ts - t0)) / (row.ts - t0);
    }
    [last, lastIndex] = [row, i];
  });
}

/** Each participant's rate per direction per row of the charts (`participantRates`, the one definition). */
function callRates(data: CallData): RateObservation[] {
  const k = streamFieldIndex('kbps');
  function* samples() {
    for (const [id, points] of data.streamPoints) for (const p of points) yield { id, ts: p.ts, kbps: p.v[k] ?? null };
  }
  const owner = (id: number) => {
    const s = data.streams.get(id);
    return s && { participant: s.participantId, direction: s.direction };
  };
  return participantRates(samples(), owner, (ts) => Math.round(ts / data.bucketMs) * data.bucketMs);
}

/** Data rate per participant and direction: the sum of its streams. */
export function rateChart(data: CallData): Chart {
  const b = new RowBuilder(data.bucketMs);
  for (const r of callRates(data))
    b.add(r.ts, `${r.participant} ${ARROW[r.direction]}`, r.participant, r.direction === 'out' ? 'sent' : 'received', r.kbps);
  return b.build();
}

/** One line per stream matching `filter`, of one field; a stream not active (`states`) is marked so. */
export function streamChart(
  data: CallData,
  field: StreamFieldName,
  filter: (s: StreamMeta) => boolean,
  states: ReadonlyMap<number, StreamLife> = new Map(),
): Chart {
  const b = new RowBuilder(data.bucketMs);
  const k = streamFieldIndex(field);
  const stateOf = new Map<string, StreamState>();
  for (const [id, points] of data.streamPoints) {
    const s = data.streams.get(id);
    if (!s || !filter(s)) continue;
    const state = states.get(id)?.state;
    if (state && state !== 'active') stateOf.set(s.label, state);
    for (const p of points) b.add(p.ts, s.label, s.participantId, lineOf(s.direction, s.kind), p.v[k] ?? null);
  }
  const chart = b.build();
  for (const series of chart.series) {
    const state = stateOf.get(series.key);
    if (state) series.state = state;
  }
  return chart;
}

/**
 * Each stream's state from the points the page holds, live or past (`streamStates`, the rule the API's
 * `state` follows): a stream's points here may be means of a bucket, which carry media where any of its
 * samples did.
 */
export function streamStatesOf(data: CallData): Map<number, StreamLife> {
  const kbps = streamFieldIndex('kbps');
  const fps = streamFieldIndex('fps');
  const ended = new Map<number, number>();
  for (const e of data.events)
    if (e.connectionId !== null && endsConnection(e.type, e.detail))
      ended.set(e.connectionId, Math.max(ended.get(e.connectionId) ?? 0, e.ts));
  const facts: StreamFacts[] = [...data.streams.values()].map((s) => {
    const points = data.streamPoints.get(s.id) ?? [];
    const active = points.filter((p) => carriesMedia(p.v[kbps] ?? null, p.v[fps] ?? null));
    return {
      id: s.id,
      participant: s.participantId,
      connection: s.connectionId,
      direction: s.direction,
      firstActiveAt: active[0]?.ts ?? null,
      lastActiveAt: active.at(-1)?.ts ?? null,
      lastSaidAt: points.findLast((p) => (p.v[kbps] ?? null) !== null || (p.v[fps] ?? null) !== null)?.ts ?? null,
      intervalMs: points.length > 1 ? (points.at(-1)!.ts - points[0]!.ts) / (points.length - 1) : null,
      connectionEndedAt: ended.get(s.connectionId) ?? null,
    };
  });
  const states = streamStates(facts);
  return new Map(facts.map((f) => [f.id, { state: states.get(f.id)!, lastActiveAt: f.lastActiveAt }]));
}

/**
 * Received video streams that carried media but that no score can judge: their browser never reported
 * their frame rate or their frame size (Firefox before 98 reports neither), by stream id with the
 * fields missing. The video score needs both.
 */
export function unscorableVideo(data: CallData, states: ReadonlyMap<number, StreamLife>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const fields = [
    ['fps', 'frame rate'],
    ['height', 'frame size'],
  ] as const;
  for (const s of data.streams.values()) {
    if (s.direction !== 'in' || s.kind !== 'video' || (states.get(s.id)?.state ?? 'never-active') === 'never-active') continue;
    const points = data.streamPoints.get(s.id) ?? [];
    const missing = fields.filter(([f]) => points.every((p) => (p.v[streamFieldIndex(f)] ?? null) === null)).map(([, name]) => name);
    if (missing.length) out.set(s.id, missing);
  }
  return out;
}

/** A stream's state and when it last carried media. */
export interface StreamLife {
  state: StreamState;
  lastActiveAt: number | null;
}

/** RTT: the selected candidate pair's per connection, and remote-inbound-rtp's per outgoing stream. */
export function rttChart(data: CallData): Chart {
  const b = new RowBuilder(data.bucketMs);
  const k = connectionFieldIndex('rttMs');
  for (const [id, points] of data.connectionPoints) {
    const c = data.connections.get(id);
    if (!c) continue;
    for (const p of points) b.add(p.ts, `${c.label} (pair)`, c.participantId, 'pair', p.v[k] ?? null);
  }
  const r = streamFieldIndex('rttMs');
  for (const [id, points] of data.streamPoints) {
    const s = data.streams.get(id);
    if (!s || s.direction !== 'out') continue;
    for (const p of points) b.add(p.ts, s.label, s.participantId, lineOf(s.direction, s.kind), p.v[r] ?? null);
  }
  return b.build();
}

/** Jain's index over participants' sending and receiving rates, per interval. */
export function fairnessChart(data: CallData): Chart {
  const rows: Row[] = fairnessOverTime(callRates(data)).map((f) => ({ ts: f.ts, 'J sending': f.send, 'J receiving': f.receive }) as Row);
  return {
    rows,
    series: [
      { key: 'J sending', participantId: '', line: 'sent' },
      { key: 'J receiving', participantId: '', line: 'received' },
    ],
  };
}

/**
 * Adds "set" lines to a chart: for each link, the value the lab had set at each row's time (null where
 * it set none, e.g. an unlimited rate), so a chart shows set next to measured as the papers' do.
 */
export function withSet(chart: Chart, sets: readonly LabSet[], value: (s: LabSet) => number | null, label: string): Chart {
  if (sets.length === 0) return chart;
  const links = [...new Set(sets.map((s) => s.link))].sort();
  const perLink = links.map((link) => ({ key: `set ${label} ${link}`, marks: sets.filter((s) => s.link === link), at: -1 }));
  // Rows and marks are both in time order: walk them together.
  const rows = chart.rows.map((row) => {
    const next = { ...row } as Row;
    for (const l of perLink) {
      while (l.at + 1 < l.marks.length && l.marks[l.at + 1]!.ts <= row.ts) l.at++;
      next[l.key] = l.at >= 0 ? value(l.marks[l.at]!) : null;
    }
    return next;
  });
  // A lab participant's links are named after it (p0-up, p0-down): its set lines take its colour.
  const owner = (link: string) => /^(p\d+)-/.exec(link)?.[1] ?? '';
  return {
    rows,
    series: [
      ...chart.series,
      ...links.map((link): ChartSeries => ({ key: `set ${label} ${link}`, participantId: owner(link), line: 'set' })),
    ],
  };
}

/** One participant's call in figures: the mean of each metric and its worst value. */
export interface ParticipantSummary {
  participantId: string;
  sentKbps: { mean: number | null; min: number | null };
  receivedKbps: { mean: number | null; min: number | null };
  rttMs: { mean: number | null; max: number | null };
  lossPct: { mean: number | null; max: number | null };
  jitterMs: { mean: number | null; max: number | null };
  fps: { mean: number | null; min: number | null };
  height: { mean: number | null; min: number | null };
}

function stats(xs: readonly number[]) {
  if (!xs.length) return { mean: null, min: null, max: null };
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Per participant: its sending and receiving rate (per interval, `participantRates`), and the RTT, loss
 * and FPS of the calls list's definitions (`meanRoles`), with jitter and frame height of what it
 * received; each as the mean over its samples and the worst one.
 */
export function callSummary(data: CallData, states: ReadonlyMap<number, StreamLife> = new Map()): ParticipantSummary[] {
  const rates = callRates(data);
  const k = {
    rtt: streamFieldIndex('rttMs'),
    loss: streamFieldIndex('lossPct'),
    jitter: streamFieldIndex('jitterMs'),
    fps: streamFieldIndex('fps'),
    height: streamFieldIndex('height'),
  };
  return data.participants.map((id) => {
    const v = { rtt: [] as number[], loss: [] as number[], jitter: [] as number[], fps: [] as number[], height: [] as number[] };
    for (const [streamId, points] of data.streamPoints) {
      const s = data.streams.get(streamId);
      // A stream that never carried media is no one's frame rate or loss: its zeros are left out.
      if (!s || s.participantId !== id || states.get(streamId)?.state === 'never-active') continue;
      const roles = meanRoles(s.direction, s.kind);
      for (const p of points) {
        const at = (i: number) => p.v[i] ?? null;
        if (roles.rtt && at(k.rtt) !== null) v.rtt.push(at(k.rtt)!);
        if (roles.loss && at(k.loss) !== null) v.loss.push(at(k.loss)!);
        if (roles.loss && at(k.jitter) !== null) v.jitter.push(at(k.jitter)!);
        if (roles.fps && at(k.fps) !== null) v.fps.push(at(k.fps)!);
        if (roles.fps && at(k.height) !== null) v.height.push(at(k.height)!);
      }
    }
    const sent = stats(rates.filter((r) => r.participant === id && r.direction === 'out').map((r) => r.kbps));
    const received = stats(rates.filter((r) => r.participant === id && r.direction === 'in').map((r) => r.kbps));
    const [rtt, loss, jitter, fps, height] = [v.rtt, v.loss, v.jitter, v.fps, v.height].map(stats) as ReturnType<typeof stats>[];
    return {
      participantId: id,
      sentKbps: { mean: sent.mean, min: sent.min },
      receivedKbps: { mean: received.mean, min: received.min },
      rttMs: { mean: rtt!.mean, max: rtt!.max },
      lossPct: { mean: loss!.mean, max: loss!.max },
      jitterMs: { mean: jitter!.mean, max: jitter!.max },
      fps: { mean: fps!.mean, min: fps!.min },
      height: { mean: height!.mean, min: height!.min },
    };
  });
}
