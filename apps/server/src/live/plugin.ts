import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LiveHub } from './hub.js';

/**
 * Live fan-out (socket.io `/live`): dashboards subscribe to their project's calls and lab; points are
 * pushed as batches commit. `clustered`: several nodes share the rooms through the PostgreSQL adapter.
 * A dashboard whose key no longer opens its project is ended when the project changes.
 */
export const liveFanout = fp(
  async (app: FastifyInstance, { clustered }: { clustered: boolean }) => {
    const live = new LiveHub(app.io, app.keys, clustered);
    app.decorate('live', live);
    app.projectChanges.onChange((change) => {
      live.recheckKeys(change.projectId).catch((err: unknown) => app.log.warn({ err }, "project changes: could not check dashboards' keys"));
    });
    app.addHook('onClose', async () => live.close());
  },
  { name: 'live', dependencies: ['project-changes'] },
);
