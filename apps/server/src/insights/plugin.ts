import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { summarizeDue } from './summaries.js';

/** How often due summaries are looked for. */
const EVERY_S = 5;

/**
 * Participants' summaries, written as calls end and kept current while they run (insights/summaries.ts),
 * for the fleet's pages. Idempotent, so every node may run it.
 */
export const callSummaries = fp(
  async (app: FastifyInstance) => {
    const stop = repeat(
      EVERY_S,
      async () => void (await summarizeDue(app.db)),
      (err) => app.log.error({ err }, 'summaries failed'),
    );
    app.addHook('onClose', stop);
  },
  { name: 'call-summaries' },
);
