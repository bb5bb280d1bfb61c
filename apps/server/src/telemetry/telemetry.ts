import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Namespace } from 'socket.io';
import type { Backlog } from '../samples/compaction.js';

/** Ack latencies from 5 ms to 10 s: the ingest target is a p99 of 250 ms, a timed-out batch takes 10 s. */
const ACK_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Alert rounds come every 2 s: one of 2 s or more delays the next. */
const ALERT_BUCKETS_S = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5];

/**
 * What an operator watches on one server process, in Prometheus' format (prom-client): the process
 * itself (CPU, memory, event-loop lag, GC), ingest (batches by outcome, samples stored, ack latency,
 * connected SDKs), dashboards connected, the database pool, and the storage job. Nothing is labelled by
 * project: the series stay few whatever the number of customers, and a scrape reveals no tenant.
 * One registry per server, so that servers in one process (tests) each count their own.
 */
export class Telemetry {
  readonly registry = new Registry();
  readonly batches = this.counter(
    'rtcscope_ingest_batches_total',
    "Batches received from SDKs, by outcome: stored (acked ok), invalid (refused for good), failed (not stored; the SDK resends), limited (over the project's ingest limit; the SDK resends), revoked (the project was deleted)",
    ['outcome'],
  );
  readonly samples = this.counter(
    'rtcscope_ingest_samples_total',
    'Stream and connection samples stored (a resent sample already stored is not counted)',
  );
  readonly ackSeconds = new Histogram({
    name: 'rtcscope_ingest_ack_seconds',
    help: 'From a batch reaching the server to its acknowledgement, whatever the outcome',
    buckets: ACK_BUCKETS_S,
    registers: [this.registry],
  });
  readonly groupBatches = new Histogram({
    name: 'rtcscope_ingest_group_batches',
    help: "Batches written by each of ingest's statements (group commit): the larger, the less the database spends per sample",
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 250, 500],
    registers: [this.registry],
  });
  readonly handshakesRefused = this.counter(
    'rtcscope_ingest_handshakes_refused_total',
    'SDK connections refused, by HTTP-like status: 400 bad handshake, 401 unknown key, 503 key not checkable now',
    ['status'],
  );
  readonly storageRuns = this.counter(
    'rtcscope_storage_job_runs_total',
    'Runs of the storage job (retention, next slice, compaction) on this node, by outcome',
    ['outcome'],
  );
  readonly storageLastSuccess = new Gauge({
    name: 'rtcscope_storage_job_last_success_seconds',
    help: 'Unix time of the storage job’s last run without error on this node (0: none yet)',
    registers: [this.registry],
  });
  readonly compacted = this.counter('rtcscope_compacted_samples_total', 'Sample rows this node compacted into blocks');
  /** A round reads every live call of every project with rules: what it costs grows with the fleet, not with one call. */
  readonly alertRoundSeconds = new Histogram({
    name: 'rtcscope_alert_evaluation_seconds',
    help: 'One round of alert rule evaluation on this node (every 2 s; a node that finds another evaluating skips the round and records nothing)',
    buckets: ALERT_BUCKETS_S,
    registers: [this.registry],
  });
  readonly alertConditionSeconds = new Histogram({
    name: 'rtcscope_alert_condition_seconds',
    help: "Within a round, reading what one kind of condition finds for all the rules of that kind: the database's share of the round",
    labelNames: ['kind'] as const,
    buckets: ALERT_BUCKETS_S,
    registers: [this.registry],
  });
  /** Summaries and rollups run every 5 s on every node: a round that grows with the live calls falls behind them. */
  readonly insightRoundSeconds = new Histogram({
    name: 'rtcscope_insights_round_seconds',
    help: 'One round of the insights\' jobs on this node: job="summaries" writes due participants\' summaries (live calls\' every minute, ended calls\' once; up to 50 calls a round), job="rollups" the days whose summaries changed',
    labelNames: ['job'] as const,
    buckets: ALERT_BUCKETS_S,
    registers: [this.registry],
  });
  readonly summarizedCalls = this.counter('rtcscope_summarized_calls_total', "Calls whose participants' summaries this node wrote");
  readonly rolledUpDays = this.counter('rtcscope_rolled_up_days_total', "A project's day rolled up from its summaries by this node");

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'rtcscope_' });
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** Gauges read when scraped: connected sockets per namespace, the database pool, and compaction's backlog. */
  watch(namespaces: { ingest: Namespace; live: Namespace }, pool: pg.Pool, backlog: () => Promise<Backlog>): void {
    new Gauge({
      name: 'rtcscope_sockets',
      help: 'Sockets connected to this node: ingest (SDKs), live (dashboards)',
      labelNames: ['namespace'] as const,
      registers: [this.registry],
      collect() {
        this.set({ namespace: 'ingest' }, namespaces.ingest.sockets.size);
        this.set({ namespace: 'live' }, namespaces.live.sockets.size);
      },
    });
    new Gauge({
      name: 'rtcscope_db_pool_clients',
      help: 'Database pool: clients open, idle, and queries waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    // Both from one catalog query per scrape; NaN when the database cannot say, so that a scrape
    // during an outage still carries the process's own figures.
    let read: Promise<Backlog | null> | null = null;
    const current = () =>
      (read ??= backlog()
        .catch(() => null)
        .finally(() => setTimeout(() => (read = null))));
    const gauges: [string, string, (b: Backlog) => number][] = [
      [
        'rtcscope_compaction_backlog_slices',
        '10-minute slices of samples due for compaction and still stored as rows (up to 2 is normal; rows take ~10 times the bytes of blocks)',
        (b) => b.slices,
      ],
      [
        'rtcscope_compaction_overdue_seconds',
        'How long the oldest slice due for compaction has been waiting (0: none); growing means compaction gets less CPU than the load needs',
        (b) => b.overdueS,
      ],
    ];
    for (const [name, help, pick] of gauges) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const b = await current();
          this.set(b ? pick(b) : NaN);
        },
      });
    }
  }
}
