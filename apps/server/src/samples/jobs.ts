import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { compactionBacklog, compactSamples, PACED, pacedShare } from './compaction.js';
import { Partitions, SLICE_MS } from './partitions.js';
import { dropExpired } from './retention.js';
import { dropExpiredSfuEvents } from '../sfu/store.js';

/** Half a slice: the next slice is always made well before its first sample arrives. */
const INTERVAL_S = SLICE_MS / 2 / 1000;
/** A slice due for 30 minutes has waited through several passes (one every 5 minutes): compaction is not keeping up, not just busy. */
const BEHIND_S = 30 * 60;

/**
 * The storage jobs, every 5 minutes and at start: expired partitions go (dropping a day is instant
 * whatever its size), the next slice is made before its first write needs it, and slices of samples
 * that are over become blocks (paced beside ingest, a pass can take most of 10 minutes: it comes last).
 * With several nodes one at a time does the work. Closing ends a pass between two chunks.
 */
export const storageJobs = fp(
  async (app: FastifyInstance) => {
    const { db, telemetry, log } = app;
    const priority = db.background.priority;
    const share = `${Math.round(pacedShare(priority) * 100)} % of a core at most`;
    if (priority?.lowest) log.info(`compaction: runs at the lowest CPU priority, ${share}`);
    else log.info(`compaction: runs at normal CPU priority, ${share} (${priority?.why ?? 'not connected'})`);

    const pass = async (signal: AbortSignal) => {
      const dropped = await dropExpired(db.pool);
      if (dropped.length) log.info({ dropped }, 'retention: dropped expired partitions');
      const sfuEvents = await dropExpiredSfuEvents(db.pool);
      if (sfuEvents) log.info({ sfuEvents }, 'retention: deleted expired SFU events');
      await Partitions.of(db.pool).ensureFor([Date.now() + SLICE_MS]);
      for (const c of await compactSamples(db, { ...PACED, share: pacedShare(db.background.priority), signal })) {
        log.info(c, 'compaction: samples now stored as blocks');
        telemetry.compacted.inc(c.rows);
      }
      const backlog = await compactionBacklog(db.pool);
      if (backlog.overdueS > BEHIND_S) {
        log.warn(
          backlog,
          'compaction is behind: samples of past slices wait as rows (~10 times the bytes of blocks); the database needs more CPU for this load (docs/sizing.md)',
        );
      }
      telemetry.storageRuns.inc({ outcome: 'ok' });
      telemetry.storageLastSuccess.set(Date.now() / 1000);
    };
    const failed = (err: unknown) => {
      telemetry.storageRuns.inc({ outcome: 'failed' });
      log.error({ err }, 'retention or compaction failed');
    };
    app.addHook('onClose', repeat(INTERVAL_S, pass, failed, true));
  },
  { name: 'storage-jobs' },
);
