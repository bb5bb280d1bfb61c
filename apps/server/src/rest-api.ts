import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { alertRoutes } from './alerts/routes.js';
import { accountRoutes } from './identity/accounts/routes.js';
import { apiAccess } from './identity/access/plugin.js';
import { calibrationRoutes } from './calibration/routes.js';
import { callRoutes } from './calls/routes.js';
import { diagnosisRoutes } from './diagnosis/routes.js';
import { insightsRoutes } from './insights/routes.js';
import { keyRoutes } from './identity/keys/routes.js';
import { organizationRoutes } from './identity/organizations/routes.js';
import { labRoutes } from './lab/routes.js';
import { projectRoutes } from './identity/projects/routes.js';
import { seriesRoutes } from './calls/series-routes.js';
import { precallRoutes } from './precall/routes.js';
import { recordingRoutes } from './recordings/plugin.js';
import { sfuRoutes } from './sfu/plugin.js';

/**
 * The REST API (`/api/v1`): every request is allowed or refused by the access policy (a person's
 * session or a scoped API key; identity/access/policy.ts), and rate-limited per client address (`rateLimit` a
 * minute). Routes parse and answer; what they read and change is the calls read model's, the samples
 * module's, the lab's, the projects' and the accounts'.
 */
export async function restApi(
  app: FastifyInstance,
  { rateLimit: max, projectIngestLimit }: { rateLimit: number; projectIngestLimit: number | null },
) {
  const { db } = app;
  // Answers hold a tenant's data or a session's secrets: no browser or proxy may keep them.
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  });
  await app.register(rateLimit, { max, timeWindow: '1 minute' });
  await app.register(apiAccess, { prefix: app.prefix });
  await app.register(accountRoutes);
  await app.register(organizationRoutes);
  await app.register(projectRoutes, { db, projectIngestLimit });
  await app.register(keyRoutes, { db, projectIngestLimit, projectChanged: app.projectChanges.announce });
  await app.register(callRoutes, { db });
  await app.register(seriesRoutes, { db });
  await app.register(diagnosisRoutes, { db });
  await app.register(insightsRoutes, { db });
  await app.register(recordingRoutes);
  await app.register(precallRoutes, { db });
  await app.register(calibrationRoutes);
  await app.register(sfuRoutes);
  await app.register(alertRoutes, { db, live: app.live });
  await app.register(labRoutes, { db, queue: app.labQueue, agents: app.agents, live: app.live });
}
