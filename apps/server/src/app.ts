import cookie from '@fastify/cookie';
import { LIMITS } from '@rtcscope/protocol';
import { createAdapter } from '@socket.io/postgres-adapter';
import Fastify, { type FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import { DEFAULT_LIMITS, type Limits } from './identity/accounts/limits.js';
import { smtpMailer } from './identity/accounts/mail.js';
import { accounts } from './identity/accounts/plugin.js';
import { alerts } from './alerts/plugin.js';
import type { OutboundTargets } from './http/outbound.js';
import { restApi } from './rest-api.js';
import { KeyResolver } from './identity/keys/keys.js';
import { callSweeper } from './calls/plugin.js';
import { callSummaries } from './insights/plugin.js';
import { type Config, DEFAULT_MAIL_FROM } from './config.js';
import type { Database } from './db/database.js';
import { apiDocs } from './http/docs.js';
import { errorAnswers, frameworkErrors } from './http/errors.js';
import { health } from './http/health.js';
import { requestInput } from './http/input.js';
import { liveDiagnosis } from './diagnosis/plugin.js';
import { QuietRequests, requestLog } from './http/logging.js';
import { methodNotAllowed } from './http/methods.js';
import { securityHeaders } from './http/security-headers.js';
import { trustOf } from './http/trust.js';
import { staticFiles } from './http/static-files.js';
import { ingest } from './ingest/plugin.js';
import { labAgents } from './lab/plugin.js';
import { liveFanout } from './live/plugin.js';
import { projectChanges } from './identity/projects/plugin.js';
import { COMPRESSION, keepWindowedOffers } from './ingest/compression.js';
import { limitFrames } from './ingest/frame-limits.js';
import { sameSitePolling } from './identity/access/polling.js';
import { addressKey } from './ingest/address-key.js';
import proxyaddr from 'proxy-addr';
import { storageJobs } from './samples/jobs.js';
import { recordingJobs } from './recordings/jobs.js';
import './services.js';
import { metricsRoute } from './telemetry/route.js';
import { Telemetry } from './telemetry/telemetry.js';

export interface RtcscopeServer {
  app: FastifyInstance;
  io: Server;
  close(): Promise<void>;
}

/**
 * One server node: Fastify and socket.io on one HTTP server, each concern a plugin that stops its own
 * work when the server closes.
 */
export async function buildServer(
  db: Database,
  config: Pick<
    Config,
    'callIdleTimeoutS' | 'sweepIntervalS' | 'labAgentGraceS' | 'logLevel' | 'storageJobs' | 'projectIngestLimit' | 'apiRateLimit'
  > &
    Partial<
      Pick<
        Config,
        | 'projectLiveCalls'
        | 'liveAdapter'
        | 'metricsToken'
        | 'trustProxy'
        | 'diagnosis'
        | 'ingestCompression'
        | 'webhookPrivateAddresses'
        | 'publicUrl'
        | 'smtpUrl'
        | 'mailFrom'
      >
    > & {
      outboundTargets?: OutboundTargets;
      /** The DNS servers single sign-on asks for domain proofs (`host:port`); the machine's resolver when unset. */
      dnsServers?: readonly string[];
      signInLimits?: Limits;
      /** Where log lines go (the tests read what they produce); standard output otherwise. */
      logStream?: { write(line: string): void };
    },
): Promise<RtcscopeServer> {
  const trust = config.trustProxy ?? false;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]', 'res.headers["set-cookie"]'],
      serializers: { req: requestLog },
      ...(config.logStream ? { stream: config.logStream } : {}),
    },
    logController: new QuietRequests(),
    // A call id may be 128 characters, each up to 12 when percent-encoded in a path (4 UTF-8 bytes):
    // 1536. Up to 2048, an id a little too long gets the validation's 400 that says so; longer is a 414.
    routerOptions: { maxParamLength: 2048 },
    // Node's 16 kB for the request line and headers is less than the longest query a route takes (a
    // sign-on callback's code of 2048 characters, each up to 12 when percent-encoded): such a request
    // would get Node's bare 431, not the route's own answer.
    http: { maxHeaderSize: 64 * 1024 },
    frameworkErrors,
    // Behind a load balancer, the client whose requests are limited and logged is the one it names (a
    // hop count trusts that many proxies from this server outwards).
    trustProxy: trustOf(trust),
  });
  const clustered = config.liveAdapter === 'postgres';
  const outboundTargets = config.outboundTargets ?? (config.webhookPrivateAddresses ? 'any' : 'public');
  const io = new Server(app.server, {
    maxHttpBufferSize: LIMITS.maxMessageBytes,
    perMessageDeflate: config.ingestCompression ? COMPRESSION : false,
    serveClient: false,
    // Several nodes: rooms and broadcasts span all of them through PostgreSQL (LISTEN/NOTIFY).
    ...(clustered ? { adapter: createAdapter(db.pool, { errorHandler: (err) => app.log.error({ err }, 'live adapter') }) } : {}),
  });
  if (config.ingestCompression) io.engine.use(keepWindowedOffers);
  const trusted = trustOf(trust);
  limitFrames(io, (request) => addressKey(proxyaddr(request, trusted)));
  sameSitePolling(io);
  app.decorate('db', db);
  app.decorate('io', io);
  app.decorate('keys', new KeyResolver(db.prisma));
  app.decorate('telemetry', new Telemetry());
  // Open sockets would keep the HTTP server from closing: they end first.
  app.addHook('preClose', () => new Promise<void>((resolve) => io.close(() => resolve())));

  await app.register(errorAnswers);
  await app.register(cookie);
  await app.register(requestInput);
  await app.register(securityHeaders);
  await app.register(methodNotAllowed);

  await app.register(projectChanges);
  await app.register(accounts, {
    limits: config.signInLimits ?? DEFAULT_LIMITS,
    mailer: smtpMailer(config.smtpUrl, config.mailFrom ?? DEFAULT_MAIL_FROM),
    publicUrl: config.publicUrl ?? null,
    outboundTargets,
    dnsServers: config.dnsServers ?? null,
  });
  await app.register(liveFanout, { clustered });
  await app.register(labAgents, { graceS: config.labAgentGraceS, checkS: config.sweepIntervalS });
  await app.register(liveDiagnosis, { enabled: config.diagnosis ?? true });
  await app.register(ingest, {
    projectIngestLimit: config.projectIngestLimit,
    projectLiveCalls: config.projectLiveCalls ?? null,
    trustProxy: trust,
  });
  await app.register(callSweeper, { intervalS: config.sweepIntervalS, idleTimeoutS: config.callIdleTimeoutS });
  await app.register(callSummaries);
  await app.register(alerts, { outboundTargets });
  if (config.storageJobs) {
    await app.register(storageJobs);
    await app.register(recordingJobs);
  }

  await app.register(apiDocs);
  await app.register(metricsRoute, { token: config.metricsToken });
  await app.register(health);
  await app.register(restApi, { prefix: '/api/v1', rateLimit: config.apiRateLimit, projectIngestLimit: config.projectIngestLimit });
  await app.register(staticFiles);
  await app.ready();

  return { app, io, close: () => app.close() };
}
