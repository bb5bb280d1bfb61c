import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { dashboardAccess } from '../identity/access/dashboard.js';
import { LiveHub } from './hub.js';

/**
 * Live fan-out (socket.io `/live`): dashboards subscribe to their project's calls and lab; points are
 * pushed as batches commit. `clustered`: several nodes share the rooms through the PostgreSQL adapter.
 * A dashboard no longer let into its project (key revoked, member removed) is ended when the project changes.
 */
export const liveFanout = fp(
  async (app: FastifyInstance, { clustered }: { clustered: boolean }) => {
    const live = new LiveHub(app.io, dashboardAccess(app), clustered);
    app.decorate('live', live);
    app.projectChanges.onChange((change) => {
      live
        .recheck(change.projectId)
        .catch((err: unknown) => app.log.warn({ err }, 'project changes: could not recheck who may watch its dashboards'));
    });
    app.addHook('onClose', async () => live.close());
  },
  { name: 'live', dependencies: ['project-changes'] },
);
