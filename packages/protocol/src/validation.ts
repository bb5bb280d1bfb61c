import type { Static, TSchema } from '@sinclair/typebox';
import { CONNECTION_FIELDS, countOutOfRange, type FieldSpec, LIMITS, SAMPLE_HEAD, STREAM_FIELDS, withinField } from './fields.js';
import { Batch, PackedBatch } from './messages.js';
import { LiveKitWebhookEvent } from './sfu.js';
import { BaseUnknown, PackError, type ReferenceHistory, type References, unpack } from './packed.js';
import { schemaCheck } from '#schema-check';

export interface FieldError {
  /** Where in the message, as a path: `s[3].fps`, `callId`. */
  field: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: FieldError };

/**
 * Compiles a schema once and reports the first problem with the field it is in: what the schema
 * refuses, or then content no schema states (`unsafeContent`).
 */
export function checker<S extends TSchema>(schema: S): (value: unknown) => Checked<Static<S>> {
  const compiled = schemaCheck(schema);
  return (value) => {
    if (compiled.Check(value)) {
      const unsafe = unsafeContent(value);
      return unsafe ? { ok: false, error: { field: pointerToPath(unsafe.pointer), message: unsafe.message } } : { ok: true, value };
    }
    const first = compiled.Errors(value).First();
    return {
      ok: false,
      error: { field: pointerToPath(first?.path ?? ''), message: first?.message ?? 'invalid value' },
    };
  };
}

/** Input nested deeper than this is refused before anything walks it recursively (and overflows the stack). */
export const MAX_DEPTH = 32;

/**
 * The first thing in a message that its schema does not say but the server cannot take, with where it
 * is (a JSON pointer): a NUL character in a string or a key (PostgreSQL's text and jsonb refuse it), or
 * nesting deeper than `MAX_DEPTH`. Null when there is none. It runs on every batch: it allocates nothing
 * on the way down and passes numbers without a call (0.7 µs for a 15-row batch, where a closure per
 * level and `for…in` took 5.8).
 */
export function unsafeContent(value: unknown, depth = 0): { pointer: string; message: string } | null {
  if (typeof value === 'string')
    return value.includes('\0') ? { pointer: '', message: 'must not contain a NUL character (\\u0000)' } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth === MAX_DEPTH) return { pointer: '', message: `is nested deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const child: unknown = value[k];
      if (typeof child === 'number' || child === null) continue;
      const found = unsafeContent(child, depth + 1);
      if (found) return { pointer: `/${k}${found.pointer}`, message: found.message };
    }
    return null;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.includes('\0')) return { pointer: `/${key}`, message: 'a key must not contain a NUL character (\\u0000)' };
    const found = unsafeContent((value as Record<string, unknown>)[key], depth + 1);
    if (found) return { pointer: `/${key}${found.pointer}`, message: found.message };
  }
  return null;
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '(root)';
  return pointer
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

export interface DecodedRow {
  index: number;
  seq: number;
  /** Epoch milliseconds. */
  ts: number;
  values: (number | null)[];
}

export interface DecodedBatch {
  batch: Batch;
  streamRows: DecodedRow[];
  connectionRows: DecodedRow[];
  /** Values outside the field table, stored as null and counted in their rows (the first few named). */
  outOfRange: { count: number; fields: FieldError[] };
  /** A packed batch's references, for the session to keep once the batch is stored. */
  references?: { n: number; after: References };
}

/** How many values set to null an acknowledgement names; the count covers them all. */
const NAMED_OUT_OF_RANGE = 10;

const checkBatchShape = checker(Batch);

/**
 * Validates a batch whole — shape, sizes, references to declared streams — and decodes its rows. Any
 * error rejects the entire batch, so nothing of a malformed batch is ever stored. A value outside its
 * field's range is not malformed (browsers report `audioLevel: -1`, a resolution of 0): it becomes null,
 * is counted in its row's `outOfRange` and named in `outOfRange`, and the rest of the batch is kept.
 * `knownStreams`/`knownConnections` are the indexes this session declared in earlier batches.
 */
export function decodeBatch(
  input: unknown,
  knownStreams: ReadonlySet<number>,
  knownConnections: ReadonlySet<number>,
): Checked<DecodedBatch> {
  const shape = checkBatchShape(input);
  if (!shape.ok) return shape;
  return decodeChecked(shape.value, knownStreams, knownConnections);
}

const checkPackedShape = checker(PackedBatch);

/**
 * `decodeBatch` for wire version 2: unpacks the rows against the references `history` kept for the
 * batch's base, then judges the batch as version 1's. A base the session does not keep is not an error
 * of the batch (`baseUnknown`): packed again whole, it will be taken.
 */
export function decodePackedBatch(
  input: unknown,
  knownStreams: ReadonlySet<number>,
  knownConnections: ReadonlySet<number>,
  history: ReferenceHistory,
): Checked<DecodedBatch> | { ok: false; baseUnknown: BaseUnknown } {
  const shape = checkPackedShape(input);
  if (!shape.ok) return shape;
  const { p, ...rest } = shape.value;
  let unpacked;
  try {
    unpacked = unpack(p, history);
  } catch (err) {
    if (err instanceof BaseUnknown) return { ok: false, baseUnknown: err };
    if (err instanceof PackError) return fail('p', `malformed packed rows: ${err.message}`);
    throw err;
  }
  const { n, t0, s, c, references } = unpacked;
  if (t0 < 1e12 || t0 > 1e13) return fail('p', `t0 must be epoch milliseconds, got ${t0}`);
  const decoded = decodeChecked({ ...rest, n, t0, s, c }, knownStreams, knownConnections);
  if (decoded.ok) decoded.value.references = { n, after: references };
  return decoded;
}

function decodeChecked(batch: Batch, knownStreams: ReadonlySet<number>, knownConnections: ReadonlySet<number>): Checked<DecodedBatch> {
  const rowCount = (batch.s?.length ?? 0) + (batch.c?.length ?? 0);
  if (rowCount > LIMITS.maxBatchRows) {
    return fail('(root)', `batch too large: ${rowCount} sample rows, the limit is ${LIMITS.maxBatchRows}`);
  }
  const conns = new Set(knownConnections);
  const declaredConns = { indexes: new Set<number>(), identities: new Set<string>() };
  for (const [k, c] of (batch.conns ?? []).entries()) {
    const again = repeated(declaredConns, c.i, c.key);
    if (again) return fail(`conns[${k}]`, `declares connection ${again} twice in one batch`);
    conns.add(c.i);
  }
  const streams = new Set(knownStreams);
  const declaredStreams = { indexes: new Set<number>(), identities: new Set<string>() };
  for (const [k, s] of (batch.streams ?? []).entries()) {
    if (!conns.has(s.conn)) return fail(`streams[${k}].conn`, `connection ${s.conn} was never declared`);
    const again = repeated(declaredStreams, s.i, `${s.conn} ${s.direction} ${s.kind} ${s.ssrc}`);
    if (again) return fail(`streams[${k}]`, `declares stream ${again} twice in one batch`);
    streams.add(s.i);
  }
  const outOfRange = { count: 0, fields: [] as FieldError[] };
  const streamRows = decodeRows('s', batch.s ?? [], STREAM_FIELDS, streams, batch.t0, outOfRange);
  if (!streamRows.ok) return streamRows;
  const connectionRows = decodeRows('c', batch.c ?? [], CONNECTION_FIELDS, conns, batch.t0, outOfRange);
  if (!connectionRows.ok) return connectionRows;
  for (const [k, e] of (batch.e ?? []).entries()) {
    if (Math.abs(e[1]) > LIMITS.maxOffsetMs) return fail(`e[${k}][1]`, 'time offset is more than a day from t0');
    if (e[2] !== null && !conns.has(e[2])) return fail(`e[${k}][2]`, `connection ${e[2]} was never declared`);
  }
  return { ok: true, value: { batch, streamRows: streamRows.value, connectionRows: connectionRows.value, outOfRange } };
}

/**
 * A batch declaring one index or one identity (a connection's key; a stream's connection, direction,
 * kind and SSRC) twice is ambiguous, and would be one row upserted twice.
 */
function repeated(seen: { indexes: Set<number>; identities: Set<string> }, index: number, identity: string): string | null {
  if (seen.indexes.has(index)) return `index ${index}`;
  if (seen.identities.has(identity)) return `"${identity}"`;
  seen.indexes.add(index);
  seen.identities.add(identity);
  return null;
}

function decodeRows(
  name: string,
  rows: readonly (number | null)[][],
  specs: readonly FieldSpec[],
  declared: ReadonlySet<number>,
  t0: number,
  outOfRange: DecodedBatch['outOfRange'],
): Checked<DecodedRow[]> {
  const out: DecodedRow[] = [];
  for (const [r, row] of rows.entries()) {
    const [index, seq, dtMs] = row;
    if (!isInt(index) || !declared.has(index)) {
      return fail(`${name}[${r}][0]`, `index ${String(index)} is not a declared ${name === 's' ? 'stream' : 'connection'}`);
    }
    if (!isInt(seq) || seq < 0 || seq > 0x7fffffff) return fail(`${name}[${r}][1]`, 'seq must be an integer 0..2^31-1');
    if (typeof dtMs !== 'number' || Math.abs(dtMs) > LIMITS.maxOffsetMs) {
      return fail(`${name}[${r}][2]`, 'dtMs must be a number within a day of t0');
    }
    const values: (number | null)[] = new Array<number | null>(specs.length).fill(null);
    let outside = 0;
    for (let k = SAMPLE_HEAD.length; k < row.length; k++) {
      const v = row[k] ?? null;
      const spec = specs[k - SAMPLE_HEAD.length];
      if (v === null || spec === undefined) continue;
      if (!withinField(spec, v)) {
        outside++;
        if (outOfRange.fields.length < NAMED_OUT_OF_RANGE) {
          outOfRange.fields.push({
            field: `${name}[${r}].${spec.name}`,
            message: `must be ${spec.integer ? 'an integer' : 'a number'} in ${spec.min}..${spec.max} ${spec.unit}, got ${v}: stored as null`,
          });
        }
        continue;
      }
      values[k - SAMPLE_HEAD.length] = v;
    }
    outOfRange.count += outside;
    countOutOfRange(specs, values, outside);
    out.push({ index, seq, ts: Math.round(t0 + dtMs), values });
  }
  return { ok: true, value: out };
}

function isInt(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function fail(field: string, message: string): { ok: false; error: FieldError } {
  return { ok: false, error: { field, message } };
}

/** One of LiveKit's webhook events, checked once its signature was (the body is read raw for the signature). */
export const checkLiveKitWebhookEvent = checker(LiveKitWebhookEvent);
