import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LiveDiagnosisRunner } from './live.js';

/**
 * The live diagnosis: calls are judged as their batches commit (issues and window scores, stored and
 * pushed to open call pages); once a second it looks across each call's participants.
 */
export const liveDiagnosis = fp(
  async (app: FastifyInstance, { enabled }: { enabled: boolean }) => {
    if (!enabled) return void app.decorate('diagnosis', null);
    const runner = new LiveDiagnosisRunner(app.db.pool, app.live, app.log);
    app.decorate('diagnosis', runner);
    const timer = setInterval(() => runner.tick(), 1000);
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await runner.close();
    });
  },
  { name: 'diagnosis', dependencies: ['live'] },
);
