import { CONNECTION_FIELDS, encodeValues, STREAM_FIELDS } from '@rtcscope/protocol/fields';
import type { NormalizedStats } from './normalize.js';
import type { DescriptorRegistry } from './registry.js';

export type Cells = (number | null)[];

/**
 * One connection's normalized sample as wire rows `[index, seq, ...values]` (the batch adds each row's
 * offset): the connection's row, if its candidate pair is known, and one per stream. Declares in the
 * registry what it names for the first time.
 */
export function sampleRows(
  registry: DescriptorRegistry,
  connKey: string,
  seq: number,
  stats: NormalizedStats,
): { connection: Cells | null; streams: Cells[] } {
  const conn = registry.connection(connKey, stats.connection);
  return {
    connection: stats.connection ? [conn, seq, ...encodeValues(CONNECTION_FIELDS, stats.connection.values)] : null,
    streams: stats.streams.map((s) => [registry.stream(conn, s.key, s.identity), seq, ...encodeValues(STREAM_FIELDS, s.values)]),
  };
}
