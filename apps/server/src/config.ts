import { resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { checker } from '@rtcscope/protocol';

/** Over 10 s, the largest batch (LIMITS.maxBatchRows) must fit in a project's allowance. */
export const MIN_INGEST_LIMIT = 1000;
export const MAX_INGEST_LIMIT = 10_000_000;
/** The most live calls a project may be allowed (a deployment's or a project's limit). */
export const MAX_LIVE_CALLS = 1_000_000;
export const DEFAULT_MAIL_FROM = 'rtcscope <no-reply@localhost>';

const Env = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: '.data' }),
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1024, maximum: 65535, default: 54329 }),
  CALL_IDLE_TIMEOUT_S: Type.Integer({ minimum: 2, maximum: 86_400, default: 30 }),
  SWEEP_INTERVAL_S: Type.Integer({ minimum: 1, maximum: 3600, default: 5 }),
  LAB_AGENT_GRACE_S: Type.Integer({ minimum: 2, maximum: 3600, default: 30 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    {
      default: 'info',
    },
  ),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  LOCAL_LAB_AGENT: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  LOCAL_TURN: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  LOCAL_TURN_PORT: Type.Integer({ minimum: 1024, maximum: 65535, default: 3478 }),
  LIVE_ADAPTER: Type.Union([Type.Literal('none'), Type.Literal('postgres')], { default: 'none' }),
  LOCAL_PROJECT: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  STORAGE_JOBS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  DIAGNOSIS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  INGEST_COMPRESSION: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  API_RATE_LIMIT: Type.Integer({ minimum: 10, maximum: 1_000_000, default: 600 }),
  TRUST_PROXY: Type.String({
    pattern: '^(off|[1-9]|[0-9a-fA-F.:]+(/\\d{1,3})?(,[0-9a-fA-F.:]+(/\\d{1,3})?)*)$',
    default: 'off',
    description:
      "must be off, how many proxies stand in front (1 behind one load balancer), or the proxies' addresses or CIDR ranges, comma-separated",
  }),
  WEBHOOK_PRIVATE_ADDRESSES: Type.Union([Type.Literal('allow'), Type.Literal('deny')], {
    default: 'deny',
    description: 'must be allow (webhooks may go to loopback and private networks, for a self-hosted server) or deny',
  }),
  SMTP_URL: Type.Optional(
    Type.String({ pattern: '^smtps?://', description: 'must be an SMTP server as smtp://user:password@host:port (or smtps://)' }),
  ),
  MAIL_FROM: Type.String({ minLength: 3, default: DEFAULT_MAIL_FROM }),
  PROJECT_INGEST_LIMIT: Type.Union([Type.Integer({ minimum: MIN_INGEST_LIMIT, maximum: MAX_INGEST_LIMIT }), Type.Literal('off')], {
    default: 20_000,
    description: `must be samples a second from ${MIN_INGEST_LIMIT} to ${MAX_INGEST_LIMIT}, or off`,
  }),
  PROJECT_LIVE_CALLS: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_LIVE_CALLS }), Type.Literal('off')], {
    default: 1000,
    description: `must be a number of calls from 1 to ${MAX_LIVE_CALLS}, or off`,
  }),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  callIdleTimeoutS: number;
  sweepIntervalS: number;
  /** A running lab run whose agent is silent this long has failed. */
  labAgentGraceS: number;
  logLevel: Static<typeof Env>['LOG_LEVEL'];
  publicUrl: string | undefined;
  /** How live messages reach dashboards connected to other nodes: 'postgres' when several nodes run. */
  liveAdapter: 'none' | 'postgres';
  /** Make (once) and print the local project; off for nodes of a multi-customer deployment. */
  localProject: boolean;
  /** Run a lab agent beside the server (the quick start does, where Chromium is installed). */
  localLabAgent: boolean;
  /** Run Debian's coturn beside the server on loopback, on this port, and give the local project its TURN settings; null: none. */
  localTurnPort: number | null;
  /** Run retention, compaction and partition upkeep every 5 minutes (one node at a time does the work). */
  storageJobs: boolean;
  /** Diagnose calls as their samples arrive (issues and scores, stored and pushed live). */
  diagnosis: boolean;
  /** Take clients' messages compressed (permessage-deflate): a fifth of the bytes for ~a fifth more server CPU. */
  ingestCompression: boolean;
  /** Serve `/metrics` (Prometheus) to requests bearing this token; unset, the route is off. */
  metricsToken: string | undefined;
  /** Samples a second one project may send to one node, unless the project has its own; null: no limit. */
  projectIngestLimit: number | null;
  /** Calls one project may have live at once (all nodes), unless the project has its own; null: no limit. */
  projectLiveCalls: number | null;
  /** REST requests a minute one client address may make to one node. */
  apiRateLimit: number;
  /**
   * Which proxies' `X-Forwarded-For` names the client (Fastify's `trustProxy`): a hop count or their
   * addresses; false: none, the connection's address is the client's.
   */
  trustProxy: false | number | string[];
  /**
   * Whether webhooks may be delivered to loopback, private and link-local addresses: a SaaS must not let
   * a customer's endpoint reach its own network; a server on one's own machine may.
   */
  webhookPrivateAddresses: boolean;
  /** Where invitations and password resets are mailed through; unset, their links are shown to admins instead. */
  smtpUrl: string | undefined;
  mailFrom: string;
}

/** Every variable the server reads; the deployment files are checked against it. */
export const ENV_NAMES: readonly string[] = Object.keys(Env.properties);

const check = checker(Env);
const INTEGER_KEYS = [
  'PORT',
  'EMBEDDED_PG_PORT',
  'LOCAL_TURN_PORT',
  'CALL_IDLE_TIMEOUT_S',
  'SWEEP_INTERVAL_S',
  'LAB_AGENT_GRACE_S',
  'PROJECT_INGEST_LIMIT',
  'PROJECT_LIVE_CALLS',
  'API_RATE_LIMIT',
] as const;

/** Reads the environment; a bad value stops start-up with the variable's name and what it must be. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of ENV_NAMES) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    raw[key] = (INTEGER_KEYS as readonly string[]).includes(key) && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  const defaults = Object.fromEntries(Object.entries(Env.properties).flatMap(([k, s]) => ('default' in s ? [[k, s.default]] : [])));
  const result = check({ ...defaults, ...raw });
  if (!result.ok) {
    // A union's own error says only that no member matched; its description says what would.
    const schema = Env.properties[result.error.field as keyof typeof Env.properties] as { description?: string } | undefined;
    throw new Error(`Invalid configuration: ${result.error.field} ${schema?.description ?? result.error.message}`);
  }
  const v = result.value;
  if (v.SMTP_URL && !v.PUBLIC_URL)
    throw new Error('Invalid configuration: SMTP_URL needs PUBLIC_URL, the address people reach this server at: links in mail point there');
  return {
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    dataDir: resolve(v.DATA_DIR),
    embeddedPgPort: v.EMBEDDED_PG_PORT,
    callIdleTimeoutS: v.CALL_IDLE_TIMEOUT_S,
    sweepIntervalS: v.SWEEP_INTERVAL_S,
    labAgentGraceS: v.LAB_AGENT_GRACE_S,
    logLevel: v.LOG_LEVEL,
    publicUrl: v.PUBLIC_URL,
    localLabAgent: v.LOCAL_LAB_AGENT === 'on',
    localTurnPort: v.LOCAL_TURN === 'on' ? v.LOCAL_TURN_PORT : null,
    liveAdapter: v.LIVE_ADAPTER,
    localProject: v.LOCAL_PROJECT === 'on',
    storageJobs: v.STORAGE_JOBS === 'on',
    diagnosis: v.DIAGNOSIS === 'on',
    ingestCompression: v.INGEST_COMPRESSION === 'on',
    metricsToken: v.METRICS_TOKEN,
    projectIngestLimit: v.PROJECT_INGEST_LIMIT === 'off' ? null : v.PROJECT_INGEST_LIMIT,
    projectLiveCalls: v.PROJECT_LIVE_CALLS === 'off' ? null : v.PROJECT_LIVE_CALLS,
    apiRateLimit: v.API_RATE_LIMIT,
    webhookPrivateAddresses: v.WEBHOOK_PRIVATE_ADDRESSES === 'allow',
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM,
    trustProxy: v.TRUST_PROXY === 'off' ? false : /^\d$/.test(v.TRUST_PROXY) ? Number(v.TRUST_PROXY) : v.TRUST_PROXY.split(','),
  };
}
