import { decodeBatch, LIMITS } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { RecordingEncoder } from './recording.js';
import type { StatEntry } from './stats.js';

const report = (c: number, i: number): Map<string, StatEntry> => {
  const ts = 1_800_000_000_000 + i * 1000;
  const entries: StatEntry[] = [
    { id: 'T', type: 'transport', timestamp: ts, selectedCandidatePairId: 'CP' },
    { id: 'CP', type: 'candidate-pair', timestamp: ts, bytesSent: i * 1000, bytesReceived: i * 500 },
    { id: 'OV', type: 'outbound-rtp', timestamp: ts, kind: 'video', ssrc: 10 + c, bytesSent: i * 100_000, packetsSent: i * 90 },
    {
      id: 'IA',
      type: 'inbound-rtp',
      timestamp: ts,
      kind: 'audio',
      ssrc: 5000 + c,
      bytesReceived: i * 4000,
      packetsReceived: i * 50,
      packetsLost: 0,
    },
  ];
  return new Map(entries.map((e) => [e.id, e]));
};

describe('RecordingEncoder', () => {
  it('makes batches a server takes whole: within every limit, each connection and stream declared before its rows, goodbye last', () => {
    const encoder = new RecordingEncoder();
    // More connections than one batch may declare, and more rows than one batch may carry.
    const connections = LIMITS.maxConnectionsPerBatch + 30;
    for (let c = 0; c < connections; c++) {
      encoder.event(`pc${c}`, 1_800_000_000_000 - 100, 'connection-state', 'connected');
      for (let i = 0; i <= 12; i++) encoder.snapshot(`pc${c}`, 1_800_000_000_000 + i * 1000, report(c, i));
    }
    const batches = [...encoder.ready(), ...encoder.finish()];
    const streams = new Set<number>();
    const conns = new Set<number>();
    let rows = 0;
    let lastTs = -Infinity;
    for (const batch of batches) {
      const decoded = decodeBatch(batch, streams, conns);
      expect(decoded.ok, JSON.stringify(decoded.ok ? null : decoded.error)).toBe(true);
      if (!decoded.ok) return;
      for (const s of batch.streams ?? []) streams.add(s.i);
      for (const c of batch.conns ?? []) conns.add(c.i);
      for (const r of decoded.value.streamRows) lastTs = Math.max(lastTs, r.ts);
      rows += decoded.value.streamRows.length + decoded.value.connectionRows.length;
    }
    expect(conns.size).toBe(connections);
    expect(streams.size).toBe(2 * connections);
    expect(rows).toBe(encoder.rowCount);
    expect(rows).toBe(connections * 13 * 3);
    expect(batches.filter((b) => b.bye)).toEqual([batches.at(-1)]);
    expect(batches.flatMap((b) => b.e ?? [])).toHaveLength(connections);
    // The first interval of each stream has no rate; the rest are the counters' rates.
    expect(
      batches
        .flatMap((b) => b.s ?? [])
        .filter((r) => r[3] !== null && r[3] !== undefined)
        .every((r) => r[3] === 800 || r[3] === 32),
    ).toBe(true);
  });
});
