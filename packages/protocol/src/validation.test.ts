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
  it('turns NaN and Infinity into null', () => {
    expect(encodeValues(STREAM_FIELDS, { kbps: Number.NaN, packets: Infinity, lossPct: 1 })).toEqual([null, null, null, 1]);
  });
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

  it('names the field that is out of range', () => {
    const fpsAt = SAMPLE_HEAD.length + streamFieldIndex('fps');
    const bad = [0, 1, 0, ...new Array<null>(fpsAt - 3).fill(null), -5];
    const r = decodeBatch({ n: 0, t0, ...declared, s: [[0, 0, 0], bad] }, new Set(), new Set());
    expect(r).toEqual({ ok: false, error: { field: 's[1].fps', message: expect.stringContaining('0..1000') } });
  });

  it('refuses rows for streams that were never declared', () => {
    const r = decodeBatch({ n: 0, t0, s: [[3, 0, 0, 1]] }, new Set([0]), new Set([0]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe('s[0][0]');
  });

  it('refuses a batch declaring one connection or stream twice', () => {
    const twice = (extra: object) => decodeBatch({ n: 0, t0, ...declared, ...extra }, new Set(), new Set());
    const stream = declared.streams[0]!;
    expect(twice({ conns: [{ i: 0, key: 'pc1' }, { i: 1, key: 'pc1' }] })).toEqual({
      ok: false,
      error: { field: 'conns[1]', message: 'declares connection "pc1" twice in one batch' },
    });
    expect(twice({ conns: [{ i: 0, key: 'pc1' }, { i: 0, key: 'pc2' }] })).toMatchObject({ ok: false, error: { field: 'conns[1]' } });
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
    expect(nul({ metadata: { app: 'a\u0000b' } })).toEqual({ ok: false, error: { field: 'metadata.app', message: expect.stringContaining('NUL') } });
    expect(nul({ metadata: { 'a\u0000': 1 } })).toMatchObject({ ok: false, error: { field: 'metadata.a\u0000' } });
    expect(nul({ e: [[0, 0, null, 'track-muted', '\u0000']] })).toMatchObject({ ok: false, error: { field: 'e[0][4]' } });
    expect(nul({ streams: [{ ...declared.streams[0], codec: 'VP8\u0000' }] })).toMatchObject({ ok: false, error: { field: 'streams[0].codec' } });
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
  it('accepts a complete handshake', () => {
    expect(check({ v: 1, key: 'ik_12345678', callId: 'room-1', participantId: 'alice', session: 's1' }).ok).toBe(true);
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
    expect(unsafeContent({ ok: ['text', 1, true, null], 'x\u0000y': 1 })).toEqual({ pointer: '/x\u0000y', message: expect.stringContaining('key') });
    expect(unsafeContent({ n: 1, s: [[0, 1, 2, null, 3.5]], t: 'plain' })).toBeNull();
  });
});
