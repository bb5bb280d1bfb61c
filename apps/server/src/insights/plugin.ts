import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { rollUpDirtyDays } from './day-rollup.js';
import { summarizeDue } from './summaries.js';

/** How often due summaries, and days whose summaries changed, are looked for. */
const EVERY_S = 5;
/** Days rolled up a round: today's (at most every ROLL_UP_AFTER_S), and old ones back-filled a few at a time. */
const DAYS_PER_ROUND = 4;

/**
 * Participants' summaries, written as calls end and kept current while they run (insights/summaries.ts),
 * and the days' rollups of them (day-rollup.ts), for the fleet's pages. Idempotent, so every node may run it.
 */
export const callSummaries = fp(
  async (app: FastifyInstance) => {
    const stop = repeat(
      EVERY_S,
      async () => {
        const rounds = app.telemetry.insightRoundSeconds;
        let done = rounds.startTimer({ job: 'summaries' });
        app.telemetry.summarizedCalls.inc((await summarizeDue(app.db)).length);
        done();
        done = rounds.startTimer({ job: 'rollups' });
        app.telemetry.rolledUpDays.inc(await rollUpDirtyDays(app.db, DAYS_PER_ROUND));
        done();
      },
      (err) => app.log.error({ err }, 'summaries failed'),
    );
    app.addHook('onClose', stop);
  },
  { name: 'call-summaries' },
);
