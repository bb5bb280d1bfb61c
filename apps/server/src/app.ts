import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { LIMITS } from '@rtcscope/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { createAdapter } from '@socket.io/postgres-adapter';
import { Server } from 'socket.io';
import { apiKeyAuth } from './api/auth.js';
import { callRoutes } from './api/calls.js';
import { keyRoutes } from './api/keys.js';
import { projectRoutes } from './api/project.js';
import { seriesRoutes } from './api/series.js';
import { KeyResolver } from './auth/keys.js';
import { announceProjectChange, PROJECT_CHANNEL, type ProjectChange, parseProjectChange } from './auth/project-changes.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { listen } from './db/notifications.js';
import { SLICE_MS } from './db/partitions.js';
import { attachIngest } from './ingest/plugin.js';
import { compactionBacklog, compactSamples, PACED, pacedShare } from './lifecycle/compaction.js';
import { dropExpired } from './lifecycle/retention.js';
import { rollUpEndedCalls } from './lifecycle/rollup.js';
import { repeat, sweep } from './lifecycle/sweeper.js';
import { AgentHub } from './lab/agents.js';
import { RunQueue } from './lab/queue.js';
import { labRoutes } from './api/lab.js';
import { LiveHub } from './live/hub.js';
import { metricsRoute } from './telemetry/route.js';
import { errorAnswers, errorBody, frameworkErrors } from './http/errors.js';
import { requestInput } from './http/input.js';
import { requestLog } from './http/logging.js';
import { methodNotAllowed } from './http/methods.js';
import { sdkHeaders, securityHeaders } from './http/security-headers.js';
import { Telemetry } from './telemetry/telemetry.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Half a slice: the next slice is always made well before its first sample arrives. */
const STORAGE_INTERVAL_S = SLICE_MS / 2 / 1000;
/** A slice due for 30 minutes has waited through several passes (one every 5 minutes): compaction is not keeping up, not just busy. */
const BEHIND_S = 30 * 60;
export const WEB_DIST = join(here, '../../web/dist');
export const SDK_DIST = join(here, '../../../packages/sdk/dist');

export interface RtcscopeServer {
  app: FastifyInstance;
  io: Server;
  close(): Promise<void>;
}

export async function buildServer(
  db: Database,
  config: Pick<Config, 'callIdleTimeoutS' | 'sweepIntervalS' | 'labAgentGraceS' | 'logLevel' | 'storageJobs' | 'projectIngestLimit' | 'apiRateLimit'> &
    Partial<Pick<Config, 'liveAdapter' | 'metricsToken' | 'trustProxy'>>,
): Promise<RtcscopeServer> {
  const trust = config.trustProxy ?? false;
  const app = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'], serializers: { req: requestLog } },
    // A call id may be 128 characters, each up to 3 when encoded in a path; longer is a 414.
    routerOptions: { maxParamLength: 512 },
    frameworkErrors,
    // Behind a load balancer, the client whose requests are limited and logged is the one it names (a
    // hop count trusts that many proxies from this server outwards).
    trustProxy: typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust,
  });
  await app.register(errorAnswers);
  await app.register(requestInput);
  await app.register(securityHeaders);
  await app.register(methodNotAllowed);
  const keys = new KeyResolver(db.prisma);
  const io = new Server(app.server, {
    maxHttpBufferSize: LIMITS.maxMessageBytes,
    cors: { origin: true, credentials: false },
    serveClient: false,
    // Several nodes: rooms and broadcasts span all of them through PostgreSQL (LISTEN/NOTIFY).
    ...(config.liveAdapter === 'postgres' ? { adapter: createAdapter(db.pool, { errorHandler: (err) => app.log.error({ err }, 'live adapter') }) } : {}),
  });
  const live = new LiveHub(io, keys, config.liveAdapter === 'postgres');
  const telemetry = new Telemetry();
  const ingest = attachIngest(io, { db, keys, live, telemetry, log: app.log, projectIngestLimit: config.projectIngestLimit });
  telemetry.watch({ ingest, live: io.of('/live') }, db.pool, () => compactionBacklog(db.pool));
  const queue = new RunQueue(db.pool);
  const agents = new AgentHub(io, db, queue, live, app.log);
  const applyProjectChange = (change: ProjectChange) => {
    keys.forgetProject(change.projectId);
    // Dashboards whose key no longer opens the project (revoked, or the project deleted) are ended.
    live.recheckKeys(change.projectId).catch((err: unknown) => app.log.warn({ err }, 'project changes: could not check dashboards\' keys'));
    if (change.deleted) agents.disconnectProject(change.projectId);
  };
  // A change made through this node applies here before its answer is sent; the others hear the notice.
  const nodeId = randomUUID();
  const projectChanged = async (change: ProjectChange) => {
    applyProjectChange(change);
    await announceProjectChange(db.pool, change, nodeId);
  };
  const projectChanges = listen(db.url, PROJECT_CHANNEL, {
    onNotice: (payload) => {
      const notice = parseProjectChange(payload);
      if (notice && notice.origin !== nodeId) applyProjectChange(notice);
    },
    onReconnect: () => keys.forgetAll(),
    onLost: (err) => app.log.warn({ err }, 'project changes: lost the connection that hears them; connecting again'),
  });

  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema, as the routes' are (`exclusiveMinimum: 0`, `type: ['number', 'null']`).
      openapi: '3.1.0',
      info: { title: 'rtcscope API', version: '1.0.0', description: 'Calls, streams, events, metric series and fairness of a project.' },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(metricsRoute, { telemetry, token: config.metricsToken });
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await db.pool.query('SELECT 1');
    } catch {
      return reply.code(503).send({ ok: false, error: 'database unavailable' });
    }
    return { ok: true };
  });

  await app.register(
    async (api) => {
      await api.register(rateLimit, { max: config.apiRateLimit, timeWindow: '1 minute' });
      await api.register(apiKeyAuth, { keys });
      await api.register(projectRoutes, { db, projectIngestLimit: config.projectIngestLimit });
      await api.register(keyRoutes, { db, projectIngestLimit: config.projectIngestLimit, projectChanged });
      await api.register(callRoutes, { db });
      await api.register(seriesRoutes, { db });
      await api.register(labRoutes, { db, queue, agents, live });
    },
    { prefix: '/api/v1' },
  );

  if (existsSync(SDK_DIST)) {
    await app.register(fastifyStatic, { root: SDK_DIST, prefix: '/sdk/', decorateReply: false, setHeaders: sdkHeaders });
  }
  const dashboard = existsSync(WEB_DIST);
  if (dashboard) await app.register(fastifyStatic, { root: WEB_DIST, prefix: '/', wildcard: false });
  app.setNotFoundHandler((request, reply) => {
    // The dashboard routes in the browser: any other GET that is not the API gets the app.
    if (dashboard && request.method === 'GET' && !request.url.startsWith('/api/')) return reply.sendFile('index.html');
    return reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url}`));
  });

  const stopSweeper = repeat(
    config.sweepIntervalS,
    async () => {
      for (const e of await sweep(db.pool, config.callIdleTimeoutS)) live.callsChanged(e.projectId, e.callId);
      for (const r of await queue.failSilent(config.labAgentGraceS)) live.labChanged(r.projectId, { campaignId: r.campaignId, runId: r.runId });
      await rollUpEndedCalls(db.pool);
    },
    (err) => app.log.error({ err }, 'sweeper failed'),
  );

  // Every 5 minutes (and at start): expired partitions go (dropping a day is instant whatever its
  // size), the next slice is made before its first write needs it, and slices of samples that are
  // over become blocks (paced beside ingest, a pass can take most of 10 minutes: it comes last).
  const storage = async (signal: AbortSignal) => {
    const dropped = await dropExpired(db.pool);
    if (dropped.length) app.log.info({ dropped }, 'retention: dropped expired partitions');
    await db.partitions.ensureFor([Date.now() + SLICE_MS]);
    for (const c of await compactSamples(db, { ...PACED, share: pacedShare(db.background.priority), signal })) {
      app.log.info(c, 'compaction: samples now stored as blocks');
      telemetry.compacted.inc(c.rows);
    }
    const backlog = await compactionBacklog(db.pool);
    if (backlog.overdueS > BEHIND_S) {
      app.log.warn(
        backlog,
        'compaction is behind: samples of past slices wait as rows (~10 times the bytes of blocks); the database needs more CPU for this load (docs/sizing.md)',
      );
    }
    telemetry.storageRuns.inc({ outcome: 'ok' });
    telemetry.storageLastSuccess.set(Date.now() / 1000);
  };
  const storageFailed = (err: unknown) => {
    telemetry.storageRuns.inc({ outcome: 'failed' });
    app.log.error({ err }, 'retention or compaction failed');
  };
  if (config.storageJobs) {
    const priority = db.background.priority;
    const share = `${Math.round(pacedShare(priority) * 100)} % of a core at most`;
    if (priority?.lowest) app.log.info(`compaction: runs at the lowest CPU priority, ${share}`);
    else app.log.info(`compaction: runs at normal CPU priority, ${share} (${priority?.why ?? 'not connected'})`);
  }
  const stopStorage = config.storageJobs ? repeat(STORAGE_INTERVAL_S, storage, storageFailed, true) : async () => {};

  return {
    app,
    io,
    close: async () => {
      await Promise.all([stopSweeper(), stopStorage(), projectChanges.close()]);
      live.close();
      io.close();
      await app.close();
    },
  };
}
