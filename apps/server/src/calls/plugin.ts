import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeat } from '../jobs/repeat.js';
import { rollUpEndedCalls } from '../samples/rollup.js';
import { sweep } from './sweep.js';

/**
 * The call sweeper: every `intervalS`, participants silent for `idleTimeoutS` have left and calls whose
 * participants all left have ended (dashboards are told, the diagnosis ends), and ended calls are rolled up.
 */
export const callSweeper = fp(
  async (app: FastifyInstance, { intervalS, idleTimeoutS }: { intervalS: number; idleTimeoutS: number }) => {
    const stop = repeat(
      intervalS,
      async () => {
        for (const e of await sweep(app.db.pool, idleTimeoutS)) {
          app.live.callsChanged(e.projectId, e.callId);
          app.diagnosis?.ended(e.projectId, e.callId);
        }
        await rollUpEndedCalls(app.db.pool);
      },
      (err) => app.log.error({ err }, 'sweeper failed'),
    );
    app.addHook('onClose', stop);
  },
  { name: 'call-sweeper', dependencies: ['live', 'diagnosis'] },
);
