import { describe, expect, it } from 'vitest';
import { parsePartitionName } from './partitions.js';

describe('parsePartitionName', () => {
  it('reads the table, UTC day and tier of a partition the server made', () => {
    expect(parsePartitionName('stream_sample_p20261122_t2')).toEqual({ table: 'stream', kind: 'sample', dayStart: Date.UTC(2026, 10, 22), tier: 2 });
    expect(parsePartitionName('connection_block_p20260101')).toEqual({ table: 'connection', kind: 'block', dayStart: Date.UTC(2026, 0, 1), tier: null });
  });

  it('refuses any other table', () => {
    expect(parsePartitionName('stream_sample')).toBeNull();
    expect(parsePartitionName('call_event_p20261122')).toBeNull();
    expect(parsePartitionName('stream_rollup_p2026112')).toBeNull();
  });
});
