import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DiagnosisThread } from './thread.js';

/**
 * The live diagnosis: calls are judged as their batches commit (issues and window scores, stored and
 * pushed to open call pages), on a thread of its own; once a second it looks across each call's participants.
 */
export const liveDiagnosis = fp(
  async (app: FastifyInstance, { enabled }: { enabled: boolean }) => {
    if (!enabled) return void app.decorate('diagnosis', null);
    const thread = new DiagnosisThread(app.db.url, app.live, app.log);
    app.decorate('diagnosis', thread);
    app.addHook('onClose', () => thread.close());
  },
  { name: 'diagnosis', dependencies: ['live'] },
);
