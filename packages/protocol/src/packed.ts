import { CONNECTION_FIELDS, type FieldSpec, LIMITS, SAMPLE_HEAD, STREAM_FIELDS } from './fields.js';

/**
 * Wire version 2's sample rows (docs/wire-format.md): each row as varints against the last row of the
 * same stream or connection that both ends know — from the batch the server last acknowledged as
 * stored, or earlier in the same batch. A row says which of its values differ from that reference; a
 * differing value is its difference in the field's own decimals, so nothing is rounded that version 1
 * would have kept. Both ends keep the same references: a batch names the one it was packed against
 * (`base`), and a row packed against nothing is whole.
 */

/** A row as version 1 sends it: `[index, seq, dtMs, ...values]`. */
export type WireRow = (number | null)[];

/** The last row of each stream (`s<index>`) and connection (`c<index>`) after a batch. */
export type References = ReadonlyMap<string, WireRow>;

/** Where a row's reference is kept: its stream's or its connection's index. */
const referenceKey = (connection: boolean, index: number | null | undefined) => `${connection ? 'c' : 's'}${index}`;

export interface PackedHeader {
  /** Batch number within the session. */
  n: number;
  /** The batch whose references this one is packed against; null: none (every row whole). */
  base: number | null;
  /** Base time, epoch ms. */
  t0: number;
}

export interface Unpacked extends PackedHeader {
  s: WireRow[];
  c: WireRow[];
  /** The references after this batch, to keep if it is stored. */
  references: References;
}

const SCALES = (specs: readonly FieldSpec[]) => specs.map((f) => 10 ** f.decimals);
const STREAM_SCALES = SCALES(STREAM_FIELDS);
const CONNECTION_SCALES = SCALES(CONNECTION_FIELDS);
const HEAD = SAMPLE_HEAD.length;

/**
 * Packs a batch's rows (stream rows, then connection rows, each in order) against `references`, as the
 * batch's `p`: the bytes in base64.
 */
export function packRows(
  header: PackedHeader,
  s: readonly WireRow[],
  c: readonly WireRow[],
  references: References,
): { p: string; references: References } {
  const out = new Writer();
  out.uint(header.n);
  out.uint(header.base === null ? 0 : header.n - header.base);
  out.uint(header.t0);
  const next = new Map(references);
  const pack = (row: WireRow, connection: boolean) => {
    const key = referenceKey(connection, row[0]);
    const ref = next.get(key);
    const scales = connection ? CONNECTION_SCALES : STREAM_SCALES;
    out.uint((row[0]! << 1) | (connection ? 1 : 0));
    out.int(row[1]! - (ref ? ref[1]! + 1 : 0));
    out.int(row[2]!);
    let changed = 0;
    const deltas: number[] = [];
    for (let k = 0; k < scales.length; k++) {
      const v = row[HEAD + k] ?? null;
      const was = ref?.[HEAD + k] ?? null;
      if (v === was) continue;
      changed += 2 ** k;
      deltas.push(v === null ? 0 : zigzag(Math.round(v * scales[k]!) - Math.round((was ?? 0) * scales[k]!)) + 1);
    }
    out.uint(changed);
    for (const d of deltas) out.uint(d);
    next.set(key, row);
  };
  for (const row of s) pack(row, false);
  for (const row of c) pack(row, true);
  return { p: toBase64(out.bytes()), references: next };
}

/**
 * Unpacks what `packRows` packed, against the references `history` kept for its base, into version 1's
 * rows (which the batch's checks then judge as they judge version 1's). Throws `PackError` on anything
 * malformed, `BaseUnknown` when the base is not kept.
 */
export function unpack(p: string, history: ReferenceHistory): Unpacked {
  const reader = new Reader(fromBase64(p));
  const n = reader.uint('n');
  const distance = reader.uint('base');
  if (distance > n) throw new PackError(`base: batch ${n} names one ${distance} before it`);
  const base = distance === 0 ? null : n - distance;
  const t0 = reader.uint('t0');
  const references = history.at(base);
  if (!references) throw new BaseUnknown(n, base!);
  const next = new Map(references);
  const s: WireRow[] = [];
  const c: WireRow[] = [];
  while (!reader.done()) {
    const at = s.length + c.length;
    if (at === LIMITS.maxBatchRows) throw new PackError(`more than ${LIMITS.maxBatchRows} sample rows`);
    const tagged = reader.uint(`row ${at}`);
    const connection = tagged % 2 === 1;
    const index = Math.floor(tagged / 2);
    const key = referenceKey(connection, index);
    const ref = next.get(key);
    const scales = connection ? CONNECTION_SCALES : STREAM_SCALES;
    const seq = reader.int(`row ${at} seq`) + (ref ? ref[1]! + 1 : 0);
    const dtMs = reader.int(`row ${at} dtMs`);
    const changed = reader.uint(`row ${at} fields`);
    if (changed >= 2 ** scales.length) throw new PackError(`row ${at} names a field past the ${scales.length} of its table`);
    const row: WireRow = [index, seq, dtMs];
    let bits = changed;
    for (let k = 0; k < scales.length; k++, bits = Math.floor(bits / 2)) {
      const was = ref?.[HEAD + k] ?? null;
      if (bits % 2 === 0) {
        row.push(was);
        continue;
      }
      const d = reader.uint(`row ${at} field ${k}`);
      row.push(d === 0 ? null : (Math.round((was ?? 0) * scales[k]!) + unzigzag(d - 1)) / scales[k]!);
    }
    while (row.length > HEAD && row[row.length - 1] === null) row.pop();
    (connection ? c : s).push(row);
    next.set(key, row);
  }
  return { n, base, t0, s, c, references: next };
}

/**
 * The references a session's batches were packed against, by batch number: the last few stored, as a
 * batch whose acknowledgement the client never got (a timeout) may be followed by one packed against
 * the batch before it.
 */
export class ReferenceHistory {
  private readonly kept = new Map<number, References>();

  constructor(private readonly depth = 4) {}

  /** The references after batch `base` (none for null); undefined when that batch is not kept. */
  at(base: number | null): References | undefined {
    return base === null ? new Map() : this.kept.get(base);
  }

  stored(n: number, references: References): void {
    this.kept.set(n, references);
    if (this.kept.size > this.depth) this.kept.delete(this.kept.keys().next().value!);
  }
}

export class PackError extends Error {}

/** A batch packed against references the server no longer (or never) kept: send it again whole. */
export class BaseUnknown extends Error {
  constructor(
    readonly n: number,
    readonly base: number,
  ) {
    super(`batch ${n} is packed against batch ${base}, which this connection does not keep: send its rows again packed whole`);
  }
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  // In slices: a backlog's rows passed whole would pass the engine's limit on a call's arguments.
  for (let k = 0; k < bytes.length; k += 0x2000) text += String.fromCharCode(...bytes.subarray(k, k + 0x2000));
  return btoa(text);
}

function fromBase64(p: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(p);
  } catch {
    throw new PackError('not base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return bytes;
}

/** Signed to unsigned, small magnitudes small; arithmetic, as values pass 2^31. */
const zigzag = (v: number) => (v >= 0 ? v * 2 : -v * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

class Writer {
  private buf = new Uint8Array(256);
  private at = 0;

  uint(v: number): void {
    if (this.at + 8 > this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    while (v >= 128) {
      this.buf[this.at++] = (v % 128) + 128;
      v = Math.floor(v / 128);
    }
    this.buf[this.at++] = v;
  }

  int(v: number): void {
    this.uint(zigzag(v));
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }
}

/** A varint of up to 8 bytes (56 bits: past every value a field, a time or a count can hold). */
const MAX_VARINT_BYTES = 8;

class Reader {
  private at = 0;

  constructor(private readonly buf: Uint8Array) {}

  done(): boolean {
    return this.at >= this.buf.length;
  }

  uint(what: string): number {
    let v = 0;
    for (let k = 0, scale = 1; k < MAX_VARINT_BYTES; k++, scale *= 128) {
      const b = this.buf[this.at++];
      if (b === undefined) throw new PackError(`${what}: the rows end inside a number`);
      v += (b % 128) * scale;
      if (b < 128) return v;
    }
    throw new PackError(`${what}: a number longer than ${MAX_VARINT_BYTES} bytes`);
  }

  int(what: string): number {
    return unzigzag(this.uint(what));
  }
}
