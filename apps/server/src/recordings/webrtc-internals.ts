import type { Readable } from 'node:stream';
import type { StatEntry } from '@rtcscope/sdk/recording';
import { RecordingError } from './errors.js';
import { formatPath, type JsonPath, walkJson } from './json-walk.js';
import { isLegacySnapshot, type LegacyBuffers, standardFromLegacy } from './legacy.js';
import { RECORDING_LIMITS } from './limits.js';
import { LOCAL_DESCRIPTION, Negotiations, RECORDED_EVENTS, type RecordingSink } from './sink.js';

/** One field's values over time as the page kept them: evenly polled, the newest last. */
interface Series {
  statsType: string;
  start: number;
  end: number;
  values: unknown[];
}

const REMOTE_TYPES = new Set(['remote-inbound-rtp', 'remote-outbound-rtp']);
/** The page polls once a second; the objects of one poll are stamped within a few milliseconds. */
const POLL_SPREAD_MS = 250;

/**
 * Reads a dump from Chrome's chrome://webrtc-internals ("Create dump", standard or legacy getStats):
 * each peer connection's stats, kept there as one series per stats object and field, is put back into
 * the snapshots the page polled, and its log into events. Read as a stream, a connection at a time.
 */
export async function readWebrtcInternals(text: Readable, sink: RecordingSink): Promise<void> {
  let sawConnections = false;
  const connections = new Map<string, Map<string, Map<string, Series>>>();
  // Values held until their connection ends and is put back together: bounded, whatever the file.
  let held = 0;
  const negotiated = new Negotiations();
  await walkJson(text, {
    wants: (p) =>
      (p.length === 1 && p[0] === 'UserAgent') ||
      (p.length === 4 && p[0] === 'PeerConnections' && (p[2] === 'stats' || p[2] === 'updateLog')),
    async value(p, v) {
      if (p[0] === 'UserAgent') {
        if (typeof v === 'string') sink.userAgent(v);
        return;
      }
      const pc = String(p[1]);
      if (p[2] === 'updateLog') await logEntry(sink, pc, p, v, negotiated);
      else held += addSeries(connections, pc, p, v);
      if (held > RECORDING_LIMITS.heldValues) {
        throw new RecordingError(
          `PeerConnections[${JSON.stringify(pc)}].stats`,
          `holds more than ${RECORDING_LIMITS.heldValues} values, more than any recording's connection does`,
        );
      }
    },
    async leave(p) {
      if (p.length === 1 && p[0] === 'PeerConnections') sawConnections = true;
      if (p.length === 2 && p[0] === 'PeerConnections') {
        const pc = String(p[1]);
        const series = connections.get(pc);
        connections.delete(pc);
        held = 0;
        await replay(sink, pc, series);
      }
    },
  });
  if (!sawConnections) throw new RecordingError('PeerConnections', 'missing: a webrtc-internals dump lists its peer connections there');
}

/** Keeps one stats series of a connection; what it holds, as `RECORDING_LIMITS.heldValues` counts. */
function addSeries(connections: Map<string, Map<string, Map<string, Series>>>, pc: string, p: JsonPath, v: unknown): number {
  const key = String(p[3]);
  const dash = key.lastIndexOf('-');
  const id = key.slice(0, dash);
  const field = key.slice(dash + 1);
  // Bracketed fields are the page's own arithmetic ("[bytesSent_in_bits/s]"), not the browser's.
  if (dash <= 0 || field.startsWith('[')) return 0;
  const o = v as { statsType?: unknown; startTime?: unknown; endTime?: unknown; values?: unknown };
  const where = formatPath(p);
  if (typeof o !== 'object' || o === null || typeof o.statsType !== 'string')
    throw new RecordingError(`${where}.statsType`, 'missing: each stats series names its type');
  const start = time(o.startTime, `${where}.startTime`);
  const end = time(o.endTime, `${where}.endTime`);
  let values: unknown;
  try {
    values = typeof o.values === 'string' ? JSON.parse(o.values) : o.values;
  } catch {
    values = null;
  }
  if (!Array.isArray(values)) throw new RecordingError(`${where}.values`, 'is not a list of values (a JSON array, as text)');
  if (values.length > RECORDING_LIMITS.seriesValues)
    throw new RecordingError(`${where}.values`, `holds ${values.length} values; a series holds at most ${RECORDING_LIMITS.seriesValues}`);
  let held = 0;
  for (const x of values) {
    const cost = valueCost(x);
    if (cost === null) {
      throw new RecordingError(
        `${where}.values`,
        'holds a list or an object inside another: a series holds numbers, strings, booleans, nulls, or flat objects of them',
      );
    }
    held += cost;
  }
  let byId = connections.get(pc);
  if (!byId) connections.set(pc, (byId = new Map()));
  let fields = byId.get(id);
  if (!fields) byId.set(id, (fields = new Map()));
  fields.set(field, { statsType: o.statsType, start, end, values });
  return held;
}

/**
 * What one value of a series costs to hold, as `RECORDING_LIMITS.heldValues` counts it: 1, once more per
 * 16 characters of a string, plus what a flat object or list holds (Chrome keeps
 * `qualityLimitationDurations` as `{ "none": 12.3, … }`); null for a container inside a container,
 * which no browser records.
 */
function valueCost(v: unknown): number | null {
  if (typeof v === 'string') return 1 + (v.length >> 4);
  if (v === null || typeof v !== 'object') return 1;
  let cost = 1;
  for (const x of Object.values(v)) {
    if (x !== null && typeof x === 'object') return null;
    cost += typeof x === 'string' ? 1 + (x.length >> 4) : 1;
  }
  return cost;
}

function time(v: unknown, where: string): number {
  const t = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw new RecordingError(where, `is not a time: ${JSON.stringify(v)}`);
  return t;
}

async function logEntry(sink: RecordingSink, pc: string, p: JsonPath, v: unknown, negotiated: Negotiations): Promise<void> {
  const o = v as { type?: unknown; value?: unknown; timestamp?: unknown; time?: unknown };
  if (typeof o !== 'object' || o === null || typeof o.type !== 'string')
    throw new RecordingError(formatPath(p), 'a log entry needs a type');
  if (o.type === LOCAL_DESCRIPTION) {
    const detail = negotiated.description(pc, o.value);
    if (detail) await sink.event(pc, time(o.timestamp ?? o.time, `${formatPath(p)}.timestamp`), 'media-negotiated', detail);
    return;
  }
  const type = RECORDED_EVENTS[o.type];
  if (type === undefined) return;
  const ts = time(o.timestamp ?? o.time, `${formatPath(p)}.timestamp`);
  await sink.event(pc, ts, type, typeof o.value === 'string' ? o.value.replace(/^"|"$/g, '') : undefined);
}

/** A stats object's values per poll: each field's series ends at the object's last poll. */
function entriesOf(id: string, fields: Map<string, Series>): StatEntry[] {
  const all = [...fields.values()];
  const n = Math.max(...all.map((s) => s.values.length));
  const stamps = fields.get('timestamp');
  const full = all.filter((s) => s.values.length === n);
  const start = Math.min(...full.map((s) => s.start));
  const end = Math.max(...full.map((s) => s.end));
  const times =
    stamps?.values.length === n && stamps.values.every((t) => typeof t === 'number')
      ? (stamps.values as number[])
      : Array.from({ length: n }, (_, i) => (n === 1 ? start : start + ((end - start) * i) / (n - 1)));
  const entries: StatEntry[] = times.map((timestamp) => ({ id, type: all[0]!.statsType, timestamp }));
  for (const [field, s] of fields) {
    if (field === 'timestamp' || field === 'id') continue;
    const offset = n - s.values.length;
    s.values.forEach((v, j) => (entries[offset + j]![field] = v));
  }
  return entries;
}

/** Puts a connection's series back into the snapshots the page polled, and hands them on in order. */
async function replay(sink: RecordingSink, pc: string, byId: Map<string, Map<string, Series>> | undefined): Promise<void> {
  if (!byId?.size) return;
  const entries = new Map([...byId].map(([id, fields]) => [id, entriesOf(id, fields)]));
  const isRemote = (list: StatEntry[]) => REMOTE_TYPES.has(list[0]!.type);
  // One poll's objects carry times a millisecond or so apart: times closer than POLL_SPREAD_MS are one poll.
  const times = [...new Set([...entries.values()].filter((l) => !isRemote(l)).flatMap((l) => l.map((e) => Math.round(e.timestamp))))].sort(
    (a, b) => a - b,
  );
  const polls: number[] = [];
  const pollOf = new Map<number, number>();
  for (const t of times) {
    if (!polls.length || t - polls.at(-1)! > POLL_SPREAD_MS) polls.push(t);
    pollOf.set(t, polls.length - 1);
  }
  const snapshots = polls.map(() => new Map<string, StatEntry>());
  const localPolls = new Map<string, number[]>();
  for (const [id, list] of entries) {
    if (isRemote(list)) continue;
    const at = list.map((e) => pollOf.get(Math.round(e.timestamp))!);
    localPolls.set(id, at);
    list.forEach((e, i) => snapshots[at[i]!]!.set(id, e));
  }
  // A remote report keeps the far end's time: it sits in the last polls of the stream it is about.
  const allPolls = polls.map((_, i) => i);
  for (const [id, list] of entries) {
    if (!isRemote(list)) continue;
    const ref = localPolls.get(String(list.at(-1)!.localId)) ?? allPolls;
    const at = ref.slice(Math.max(0, ref.length - list.length));
    const skip = list.length - at.length;
    at.forEach((poll, i) => snapshots[poll]!.set(id, list[skip + i]!));
  }
  const buffers: LegacyBuffers = new Map();
  for (const [i, snapshot] of snapshots.entries()) {
    await sink.snapshot(pc, polls[i]!, isLegacySnapshot(snapshot) ? standardFromLegacy(snapshot, buffers) : snapshot);
  }
}
