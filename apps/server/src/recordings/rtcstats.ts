import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ID_PATTERN, LIMITS } from '@rtcscope/protocol';
import type { StatEntry } from '@rtcscope/sdk/recording';
import { RecordingError } from './errors.js';
import { isLegacySnapshot, type LegacyBuffers, standardFromLegacy } from './legacy.js';
import { RECORDING_LIMITS } from './limits.js';
import { LOCAL_DESCRIPTION, Negotiations, RECORDED_EVENTS, type RecordingSink } from './sink.js';

const GETSTATS = new Set(['getstats', 'getStats']);
/** The methods read besides RECORDED_EVENTS' (a line of any other method is read only for a user agent it may carry). */
const READ = new Set([...GETSTATS, 'create', 'close', LOCAL_DESCRIPTION]);
const ID = new RegExp(ID_PATTERN);

/**
 * Reads an rtcstats dump, line by line: the JSON-lines files rtcstats servers write, either in file
 * format 3 (`RTCStatsDump`, a metadata line, then `[method, connection, value, …, ms since the line
 * before]`: Chrome's own webrtc-internals writes these too) or in the older form with each line's
 * epoch time fourth (what the `@jitsi/rtcstats` client sends). getStats lines may be delta-compressed:
 * only what changed since the connection's last report, a report's time 0 meaning the line's.
 */
export async function readRtcstats(text: Readable, sink: RecordingSink): Promise<void> {
  const reports = new Map<string, Map<string, StatEntry>>();
  // Stats fields kept in every connection's last report (a delta needs it): bounded, whatever the file.
  const heldFields = new Map<string, number>();
  // A legacy connection's jitter buffers, carried between its reports (standardFromLegacy).
  const buffers = new Map<string, LegacyBuffers>();
  let held = 0;
  let lineNo = 0;
  let format3 = false;
  let clock = 0;
  let entries = 0;
  const negotiated = new Negotiations();
  for await (const line of linesOf(text)) {
    lineNo++;
    const where = `line ${lineNo}`;
    if (!line.trim()) continue;
    if (lineNo === 1 && line.trim() === 'RTCStatsDump') {
      format3 = true;
      continue;
    }
    const entry = parseLine(line, where);
    if (format3 && lineNo === 2) {
      const meta = entry as { fileFormat?: unknown; userAgent?: unknown; participants?: unknown };
      if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
        throw new RecordingError(where, 'the metadata line after RTCStatsDump must be a JSON object');
      if (meta.fileFormat !== 3)
        throw new RecordingError(
          `${where}, fileFormat`,
          `rtcstats file format ${JSON.stringify(meta.fileFormat)} is not supported (format 3 is)`,
        );
      if (typeof meta.userAgent === 'string') sink.userAgent(meta.userAgent);
      for (const [connection, participant] of participantsOf(meta.participants, `${where}, participants`))
        sink.participant(connection, participant);
      continue;
    }
    if (!Array.isArray(entry) || entry.length < 3 || typeof entry[0] !== 'string' || !(entry[1] === null || typeof entry[1] === 'string')) {
      throw new RecordingError(where, 'an rtcstats line is a JSON array: [method, connection id or null, value, …, time]');
    }
    // An app's own line without a time (Jitsi's `["e2eRtt", null, {…}]`): nothing here reads it.
    if (entry.length < 4 && !READ.has(entry[0]) && !RECORDED_EVENTS[entry[0]]) continue;
    if (entry.length < 4)
      throw new RecordingError(where, `a ${entry[0]} line needs its time: [method, connection id or null, value, …, time]`);
    const time = format3 ? entry.at(-1) : entry[3];
    if (typeof time !== 'number' || !Number.isFinite(time))
      throw new RecordingError(`${where}, time`, `must be a number of milliseconds, got ${JSON.stringify(time)}`);
    const ts = format3 ? (clock += time) : time;
    const [method, pc, value] = entry as [string, string | null, unknown];
    entries++;
    if (GETSTATS.has(method) && pc !== null) {
      const snapshot = decompress(reports.get(pc), value, ts, where);
      const fields = fieldCount(snapshot);
      held += fields - (heldFields.get(pc) ?? 0);
      if (held > RECORDING_LIMITS.heldValues)
        throw new RecordingError(
          where,
          `the connections' reports hold more than ${RECORDING_LIMITS.heldValues} stats fields at once, more than any recording does`,
        );
      heldFields.set(pc, fields);
      reports.set(pc, snapshot);
      if (!isLegacySnapshot(snapshot)) await sink.snapshot(pc, ts, snapshot);
      else {
        if (!buffers.has(pc)) buffers.set(pc, new Map());
        await sink.snapshot(pc, ts, standardFromLegacy(snapshot, buffers.get(pc)!));
      }
    } else if (method === 'create' && pc !== null) {
      await sink.event(pc, ts, 'connection-added', pc);
    } else if (method === 'close' && pc !== null) {
      await sink.event(pc, ts, 'connection-removed', pc);
    } else if (method === LOCAL_DESCRIPTION && pc !== null) {
      const detail = negotiated.description(pc, value);
      if (detail) await sink.event(pc, ts, 'media-negotiated', detail);
    } else {
      const detail = pc === null ? null : negotiated.call(pc, method, value);
      if (detail) await sink.event(pc, ts, 'media-negotiated', detail);
      if (RECORDED_EVENTS[method] && pc !== null) {
        await sink.event(pc, ts, RECORDED_EVENTS[method], typeof value === 'string' ? value : undefined);
      } else if (!detail) {
        const ua = userAgentOf(value);
        if (ua) sink.userAgent(ua);
      }
    }
  }
  if (!entries) throw new RecordingError(`line ${lineNo}`, 'the file holds no rtcstats lines');
}

function fieldCount(snapshot: Map<string, StatEntry>): number {
  let n = 0;
  for (const entry of snapshot.values()) n += Object.keys(entry).length;
  return n;
}

/**
 * The text's lines, taken from the stream only as they are used: the next chunk is read when the lines
 * before it are handled, so a slow reader (each batch is written before the next) holds no backlog. A
 * line's pieces are kept apart until it ends (each chunk is searched once, whatever the line's length),
 * and a line longer than `RECORDING_LIMITS.lineChars` is refused as it grows.
 */
async function* linesOf(text: Readable): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pieces: string[] = [];
  let length = 0;
  let lineNo = 1;
  const take = (last: string): string => {
    pieces.push(last);
    const line = pieces.join('');
    pieces = [];
    length = 0;
    lineNo++;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  const keep = (piece: string) => {
    length += piece.length;
    if (length > RECORDING_LIMITS.lineChars)
      throw new RecordingError(`line ${lineNo}`, `is longer than ${RECORDING_LIMITS.lineChars} characters, which no rtcstats line is`);
    pieces.push(piece);
  };
  for await (const chunk of text) {
    const decoded = decoder.write(chunk as Buffer);
    let from = 0;
    for (let end = decoded.indexOf('\n'); end !== -1; end = decoded.indexOf('\n', from)) {
      keep(decoded.slice(from, end));
      yield take('');
      from = end + 1;
    }
    keep(decoded.slice(from));
  }
  keep(decoder.end());
  if (length) yield take('');
}

function parseLine(line: string, where: string): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    throw new RecordingError(where, `is not JSON (${(err as Error).message}); a line cut short means the file was cut off`);
  }
}

/** A connection's full report from its last one and what changed since. */
function decompress(base: Map<string, StatEntry> | undefined, value: unknown, ts: number, where: string): Map<string, StatEntry> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RecordingError(`${where}, value`, 'getStats needs a report: an object of stats objects by id');
  const delta = value as Record<string, unknown>;
  const lineTime = typeof delta.timestamp === 'number' ? delta.timestamp : ts;
  const out = new Map<string, StatEntry>();
  for (const [id, report] of Object.entries(delta)) {
    if (id === 'timestamp' && typeof report === 'number') continue;
    if (typeof report !== 'object' || report === null) throw new RecordingError(`${where}, ${id}`, 'a stats object must be a JSON object');
    const merged = { ...base?.get(id), ...(report as Record<string, unknown>), id } as StatEntry;
    if ((report as { timestamp?: unknown }).timestamp === 0 || typeof merged.timestamp !== 'number') merged.timestamp = lineTime;
    // An object whose type no line named (its first report was never written, as when a client's socket
    // came back mid-call) cannot be read; the rest of the report can.
    if (typeof merged.type === 'string') out.set(id, merged);
  }
  return out;
}

/** The browser a line names: a metadata or identity object's user agent, or Chrome's own brands. */
function userAgentOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { userAgent?: unknown; userAgentData?: { brands?: { brand: string; version: string }[] } };
  if (typeof v.userAgent === 'string') return v.userAgent;
  const brand = v.userAgentData?.brands?.find((b) => !/not.a.brand/i.test(b.brand));
  return brand ? `${brand.brand}/${brand.version}` : undefined;
}

/** An rtcscope export's `participants`: `{ connection: participant id }`, each id as the wire takes it. */
function participantsOf(value: unknown, where: string): [string, string][] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new RecordingError(where, 'must be an object of connection → participant id');
  return Object.entries(value).map(([connection, participant]) => {
    if (typeof participant !== 'string' || participant.length > LIMITS.maxIdLength || !ID.test(participant))
      throw new RecordingError(
        `${where}.${connection}`,
        `must be a participant id (${ID.source}), got ${JSON.stringify(participant).slice(0, 80)}`,
      );
    return [connection, participant];
  });
}
