import { describe, expect, it } from 'vitest';
import { CONNECTION_FIELDS, SAMPLE_HEAD, STREAM_FIELDS } from './fields.js';
import { BaseUnknown, packRows, PackError, ReferenceHistory, type References, unpack, type WireRow } from './packed.js';

const T0 = 1_795_313_757_009;

/** A value of `spec`'s range at its decimals, or null a tenth of the time. */
function value(spec: (typeof STREAM_FIELDS)[number] | (typeof CONNECTION_FIELDS)[number], random: () => number): number | null {
  if (random() < 0.1) return null;
  const scale = 10 ** spec.decimals;
  return Math.round((spec.min + random() * (spec.max - spec.min)) * scale) / scale;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/** What version 1 carries: trailing nulls dropped. */
const trimmed = (row: WireRow) => {
  const out = [...row];
  while (out.length > SAMPLE_HEAD.length && out[out.length - 1] === null) out.pop();
  return out;
};

describe('packed rows (wire version 2)', () => {
  it('unpacks exactly the rows packed, batch after batch, whatever the values: extremes, nulls coming and going, the last field', () => {
    const random = seeded(7);
    const sender = { n: -1, references: new Map() as References };
    const receiver = new ReferenceHistory();
    for (let n = 0; n < 40; n++) {
      const s = Array.from({ length: 1 + (n % 5) }, (_, k): WireRow => {
        const index = k % 3;
        return [index, n * 2 + k, k * 7 - 3, ...STREAM_FIELDS.map((f) => (k === 4 ? (n % 2 ? f.max : f.min) : value(f, random)))];
      });
      const c = [[0, n, 0, ...CONNECTION_FIELDS.map((f) => value(f, random))]];
      const base = sender.n < 0 ? null : sender.n;
      const packed = packRows({ n, base, t0: T0 + n * 1000 }, s, c, sender.references);
      const got = unpack(packed.p, receiver);
      expect(got).toMatchObject({ n, base, t0: T0 + n * 1000 });
      expect(got.s).toEqual(s.map(trimmed));
      expect(got.c).toEqual(c.map(trimmed));
      receiver.stored(n, got.references);
      sender.n = n;
      sender.references = packed.references;
    }
  });

  it('costs a steady stream a few bytes a row: what changed, as a small difference', () => {
    const row = (seq: number, kbps: number, rtt: number): WireRow => [0, seq, 0, kbps, 50, 0, 0, 2.1, rtt];
    const first = packRows({ n: 0, base: null, t0: T0 }, [row(0, 32.4, 12.5)], [], new Map());
    const next = packRows({ n: 1, base: 0, t0: T0 + 1000 }, [row(1, 32.9, 12.7)], [], first.references);
    // Header: n, base and t0 (6 bytes). Row: index, seq, dtMs, which changed, and 2 values of a byte each.
    expect(Buffer.from(next.p, 'base64').length - 8).toBe(6);
    expect(unpack(next.p, history([0, first.references])).s).toEqual([row(1, 32.9, 12.7)]);
  });

  it('refuses a base it does not keep, and keeps only the last few', () => {
    const kept = new ReferenceHistory(2);
    for (const n of [0, 1, 2]) kept.stored(n, new Map());
    const packed = packRows({ n: 3, base: 0, t0: T0 }, [], [], new Map());
    expect(() => unpack(packed.p, kept)).toThrow(BaseUnknown);
    expect(unpack(packRows({ n: 3, base: 1, t0: T0 }, [], [], new Map()).p, kept).n).toBe(3);
  });

  it('refuses malformed text or bytes with what is wrong, never reading past them', () => {
    const whole = Buffer.from(packRows({ n: 0, base: null, t0: T0 }, [[0, 0, 0, 1706.2, 151]], [], new Map()).p, 'base64');
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    const cases: [string, RegExp][] = [
      ['not base64!', /not base64/],
      [b64(whole.subarray(0, whole.length - 1)), /end inside a number/],
      [b64(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)), /longer than 8 bytes/],
      [b64(Uint8Array.of(1, 5, 0)), /names one 5 before it/],
      // A connection row naming field 7 of 6.
      [b64(Uint8Array.of(0, 0, 1, 1, 0, 0, 0x80, 0x01)), /past the 6 of its table/],
    ];
    for (const [p, message] of cases) expect(() => unpack(p, new ReferenceHistory())).toThrow(message);
    for (const [p] of cases) expect(() => unpack(p, new ReferenceHistory())).toThrow(PackError);
  });

  it(`refuses more rows than a batch may hold`, () => {
    const rows = Array.from({ length: 5001 }, (_, k): WireRow => [0, k, 0]);
    const packed = packRows({ n: 0, base: null, t0: T0 }, rows, [], new Map());
    expect(() => unpack(packed.p, new ReferenceHistory())).toThrow(/more than 5000 sample rows/);
  });
});

function history(...kept: [number, References][]): ReferenceHistory {
  const h = new ReferenceHistory();
  for (const [n, r] of kept) h.stored(n, r);
  return h;
}
