import { describe, expect, it } from 'vitest';
import { encodeValues, SAMPLE_HEAD, STREAM_FIELDS, streamFieldIndex } from './fields.js';
import { IngestHandshake } from './messages.js';
import { checker, decodeBatch, MAX_DEPTH, unsafeContent } from './validation.js';

const t0 = 1_790_000_000_000;
const declared = {
  conns: [{ i: 0, key: 'pc1' }],
  streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1234 }],
};

describe('encodeValues', () => {
  it('keeps declared order, rounds to the declared precision and drops trailing nulls', () => {
    const row = encodeValues(STREAM_FIELDS, { kbps: 31.26, packets: 50, jitterMs: 1.234 });
    expect(row).toEqual([31.3, 50, null, null, 1.2]);
  });
  it('turns NaN and Infinity into null, and counts them in the row', () => {
    const row = encodeValues(STREAM_FIELDS, { kbps: Number.NaN, packets: Infinity, lossPct: 1 });
    expect(row.slice(0, 4)).toEqual([null, null, null, 1]);
    expect(row[streamFieldIndex('outOfRange')]).toBe(2);
  });

  it.each(STREAM_FIELDS.filter((f) => f.name !== 'outOfRange').map((f) => [f.name, f] as const))(
    '%s: every kind of value outside the field table becomes null and is counted, its neighbours kept',
    (_, spec) => {
      // A fraction of an integer field is rounded here (its precision), refused by the server (below).
      const bad = [Number.NaN, Infinity, -Infinity, spec.min - 1, spec.max + 1];
      for (const v of bad) {
        const values = Object.fromEntries(STREAM_FIELDS.map((f) => [f.name, f.name === spec.name ? v : f.min]));
        const row = encodeValues(STREAM_FIELDS, values);
        const k = streamFieldIndex(spec.name);
        // The last field's null is a trailing one, left off the row.
        expect(row[k] ?? null, `${spec.name} = ${v}`).toBeNull();
        expect(row[streamFieldIndex('outOfRange')]).toBe(1);
        expect(row.filter((c, j) => j !== k && j !== streamFieldIndex('outOfRange')).every((c) => c !== null)).toBe(true);
      }
    },
  );
});

describe('decodeBatch', () => {
  it('decodes rows into absolute times with padded values', () => {
    const r = decodeBatch({ n: 0, t0, ...declared, s: [[0, 7, 1000, 512.5, 40]] }, new Set(), new Set());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [row] = r.value.streamRows;
    expect(row).toMatchObject({ index: 0, seq: 7, ts: t0 + 1000 });
    expect(row?.values).toHaveLength(STREAM_FIELDS.length);
    expect(row?.values.slice(0, 3)).toEqual([512.5, 40, null]);
  });

  it('stores a value out of range as null, counts it in its row and names it, keeping the rest of the batch', () => {
    const fpsAt = SAMPLE_HEAD.length + streamFieldIndex('fps');
    const bad = [0, 1, 0, 250, ...new Array<null>(fpsAt - 4).fill(null), -5];
    const r = decodeBatch({ n: 0, t0, ...declared, s: [[0, 0, 0, 100], bad] }, new Set(), new Set());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.outOfRange).toEqual({ count: 1, fields: [{ field: 's[1].fps', message: expect.stringContaining('0..1000') }] });
    const [first, second] = r.value.streamRows;
    expect(first?.values[0]).toBe(100);
    expect(second?.values[0]).toBe(250);
    expect(second?.values[streamFieldIndex('fps')]).toBeNull();
    expect(second?.values[streamFieldIndex('outOfRange')]).toBe(1);
    // What the sender counted already is added to.
    const counted: (number | null)[] = [0, 2, 0, ...new Array<null>(STREAM_FIELDS.length).fill(null)];
    counted[SAMPLE_HEAD.length + streamFieldIndex('width')] = 0;
    counted[SAMPLE_HEAD.length + streamFieldIndex('packets')] = 2.5;
    counted[SAMPLE_HEAD.length + streamFieldIndex('outOfRange')] = 3;
    const again = decodeBatch({ n: 1, t0, s: [counted] }, new Set([0]), new Set([0]));
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.value.streamRows[0]?.values[streamFieldIndex('width')]).toBeNull();
    expect(again.value.streamRows[0]?.values[streamFieldIndex('packets')]).toBeNull();
    expect(again.value.streamRows[0]?.values[streamFieldIndex('outOfRange')]).toBe(5);
  });

  it('refuses rows for streams that were never declared', () => {
    const r = decodeBatch({ n: 0, t0, s: [[3, 0, 0, 1]] }, new Set([0]), new Set([0]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe('s[0][0]');
  });

  it('refuses a batch declaring one connection or stream twice', () => {
    const twice = (extra: object) => decodeBatch({ n: 0, t0, ...declared, ...extra }, new Set(), new Set());
    const stream = declared.streams[0]!;
    expect(
      twice({
        conns: [
          { i: 0, key: 'pc1' },
          { i: 1, key: 'pc1' },
        ],
      }),
    ).toEqual({
      ok: false,
      error: { field: 'conns[1]', message: 'declares connection "pc1" twice in one batch' },
    });
    expect(
      twice({
        conns: [
          { i: 0, key: 'pc1' },
          { i: 0, key: 'pc2' },
        ],
      }),
    ).toMatchObject({ ok: false, error: { field: 'conns[1]' } });
    expect(twice({ streams: [stream, { ...stream, i: 1 }] })).toEqual({
      ok: false,
      error: { field: 'streams[1]', message: 'declares stream "0 out video 1234" twice in one batch' },
    });
    expect(twice({ streams: [stream, { ...stream, ssrc: 99 }] })).toMatchObject({ ok: false, error: { field: 'streams[1]' } });
    expect(twice({ streams: [stream, { ...stream, i: 1, ssrc: 99 }] }).ok).toBe(true);
  });

  it('accepts rows for streams declared in an earlier batch of the session', () => {
    expect(decodeBatch({ n: 1, t0, s: [[0, 1, 0, 1]] }, new Set([0]), new Set([0])).ok).toBe(true);
  });

  it('refuses unknown properties and wrong types naming the field', () => {
    const extra = decodeBatch({ n: 0, t0, bogus: 1 }, new Set(), new Set());
    expect(extra.ok).toBe(false);
    const wrong = decodeBatch({ n: 'x', t0 }, new Set(), new Set());
    expect(wrong.ok === false && wrong.error.field).toBe('n');
  });

  it('refuses NUL characters, which PostgreSQL cannot store, wherever text goes: metadata, event details, codecs', () => {
    const nul = (extra: object) => decodeBatch({ n: 0, t0, ...declared, ...extra }, new Set(), new Set());
    expect(nul({ metadata: { app: 'a\u0000b' } })).toEqual({
      ok: false,
      error: { field: 'metadata.app', message: expect.stringContaining('NUL') },
    });
    expect(nul({ metadata: { 'a\u0000': 1 } })).toMatchObject({ ok: false, error: { field: 'metadata.a\u0000' } });
    expect(nul({ e: [[0, 0, null, 'track-muted', '\u0000']] })).toMatchObject({ ok: false, error: { field: 'e[0][4]' } });
    expect(nul({ streams: [{ ...declared.streams[0], codec: 'VP8\u0000' }] })).toMatchObject({
      ok: false,
      error: { field: 'streams[0].codec' },
    });
  });

  it('refuses metadata keys longer than 64 characters', () => {
    const r = decodeBatch({ n: 0, t0, metadata: { ['k'.repeat(65)]: 1 } }, new Set(), new Set());
    expect(r).toMatchObject({ ok: false, error: { field: `metadata.${'k'.repeat(65)}` } });
    expect(decodeBatch({ n: 0, t0, metadata: { ['k'.repeat(64)]: 1 } }, new Set(), new Set()).ok).toBe(true);
  });

  it('refuses an oversized batch whole', () => {
    const rows = Array.from({ length: 5001 }, (_, k) => [0, k, 0, 1]);
    const r = decodeBatch({ n: 0, t0, ...declared, s: rows }, new Set(), new Set());
    expect(r.ok === false && r.error.message).toMatch(/batch too large: 5001/);
  });
});

describe('IngestHandshake', () => {
  const check = checker(IngestHandshake);
  it('accepts a complete handshake of wire version 1 or 2, and no other', () => {
    const hs = { key: 'ik_12345678', callId: 'room-1', participantId: 'alice', session: 's1' };
    expect([1, 2, 3, '2'].map((v) => check({ ...hs, v }).ok)).toEqual([true, true, false, false]);
  });
  it('names a bad id', () => {
    const r = check({ v: 1, key: 'ik_12345678', callId: 'room 1', participantId: 'alice', session: 's1' });
    expect(r.ok === false && r.error.field).toBe('callId');
  });
});

describe('unsafeContent', () => {
  it('finds nesting deeper than the limit without overflowing the stack, however deep', () => {
    let deep: unknown = 1;
    for (let k = 0; k < 100_000; k++) deep = { a: [deep] };
    expect(unsafeContent(deep)).toEqual({ pointer: '/a/0'.repeat(MAX_DEPTH / 2), message: `is nested deeper than ${MAX_DEPTH} levels` });
    let shallow: unknown = 'ok';
    for (let k = 0; k < MAX_DEPTH; k++) shallow = [shallow];
    expect(unsafeContent(shallow)).toBeNull();
  });

  it('names the first NUL character in a string or a key, and passes everything else', () => {
    expect(unsafeContent({ a: [1, null, { b: 'x\u0000' }] })).toEqual({ pointer: '/a/2/b', message: expect.stringContaining('NUL') });
    expect(unsafeContent({ ok: ['text', 1, true, null], 'x\u0000y': 1 })).toEqual({
      pointer: '/x\u0000y',
      message: expect.stringContaining('key'),
    });
    expect(unsafeContent({ n: 1, s: [[0, 1, 2, null, 3.5]], t: 'plain' })).toBeNull();
  });
});
