import type pg from 'pg';
import type { Namespace } from 'socket.io';
import { describe, expect, it } from 'vitest';
import { Telemetry } from './telemetry.js';

const namespace = { sockets: new Map() } as unknown as Namespace;
const pool = { totalCount: 2, idleCount: 1, waitingCount: 0 } as pg.Pool;

describe('Telemetry', () => {
  it('reads compaction backlog once per scrape for both of its gauges', async () => {
    const telemetry = new Telemetry();
    let reads = 0;
    telemetry.watch({ ingest: namespace, live: namespace }, pool, async () => {
      reads++;
      return { slices: 3, overdueS: 1200 };
    });
    const text = await telemetry.registry.metrics();
    expect(text).toMatch(/^rtcscope_compaction_backlog_slices 3$/m);
    expect(text).toMatch(/^rtcscope_compaction_overdue_seconds 1200$/m);
    expect(reads).toBe(1);
  });

  it('still serves a scrape when the database cannot say, with the backlog unknown', async () => {
    const telemetry = new Telemetry();
    telemetry.watch({ ingest: namespace, live: namespace }, pool, () => Promise.reject(new Error('connection refused')));
    const text = await telemetry.registry.metrics();
    // prom-client prints it as Nan; Prometheus reads NaN in any case.
    expect(text).toMatch(/^rtcscope_compaction_backlog_slices nan$/im);
    expect(text).toMatch(/^rtcscope_db_pool_clients\{state="total"\} 2$/m);
    expect(text).toMatch(/^rtcscope_process_resident_memory_bytes \d+/m);
  });
});
