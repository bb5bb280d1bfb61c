import { describe, expect, it } from 'vitest';
import { compactionHorizon, parsePartitionName, SLICE_MS, sliceName } from './partitions.js';

describe('parsePartitionName', () => {
  it('reads the table, UTC day and tier of a day partition the server made', () => {
    const day = Date.UTC(2026, 10, 22);
    expect(parsePartitionName('stream_block_p20261122_t2')).toEqual({
      table: 'stream',
      kind: 'block',
      start: day,
      end: day + 86_400_000,
      slice: false,
      tier: 2,
    });
    expect(parsePartitionName('connection_rollup_p20260101')).toMatchObject({
      table: 'connection',
      kind: 'rollup',
      start: Date.UTC(2026, 0, 1),
      tier: null,
    });
    // Samples in whole days: databases from before slices.
    expect(parsePartitionName('stream_sample_p20261122_t0')).toMatchObject({ kind: 'sample', slice: false, tier: 0 });
  });

  it('reads the time range of a slice of samples, as sliceName writes it', () => {
    const start = Date.UTC(2026, 10, 22, 23, 50);
    expect(sliceName('connection_sample', start)).toBe('connection_sample_s202611222350');
    expect(parsePartitionName('connection_sample_s202611222350')).toEqual({
      table: 'connection',
      kind: 'sample',
      start,
      end: start + SLICE_MS,
      slice: true,
      tier: null,
    });
  });

  it('refuses any other table', () => {
    expect(parsePartitionName('stream_sample')).toBeNull();
    expect(parsePartitionName('call_event_p20261122')).toBeNull();
    expect(parsePartitionName('stream_rollup_p2026112')).toBeNull();
    expect(parsePartitionName('stream_block_s202611222350')).toBeNull();
  });
});

describe('compactionHorizon', () => {
  it('is the end of the last slice that ended long enough ago to be compacted', () => {
    const slice = Date.UTC(2026, 10, 22, 14, 0);
    expect(compactionHorizon(slice + SLICE_MS + 600_000)).toBe(slice + SLICE_MS);
    expect(compactionHorizon(slice + SLICE_MS + 599_999)).toBe(slice);
  });
});
