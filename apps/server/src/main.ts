import { linkUrl } from './identity/accounts/links.js';
import { ensureLocalProject, type LocalProject, LOCAL_OWNER, localOwnerLink } from './identity/keys/local-project.js';
import { buildServer } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { startLocalAgent } from './lab/local-agent.js';
import { startLocalTurn } from './precall/local-turn.js';
import { stopInOrder } from './stop-in-order.js';

const config = loadConfig();
const embedded = config.databaseUrl
  ? null
  : await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, (line) => console.error(line));
const db = await openDatabase(config.databaseUrl ?? embedded!.url);
const project = config.localProject ? await ensureLocalProject(db, config.dataDir) : null;
const signInToken = project ? await localOwnerLink(db, project.projectId) : null;
const turn =
  config.localTurnPort !== null && project
    ? await startLocalTurn(db.prisma, project.projectId, config.dataDir, config.localTurnPort)
    : null;
const server = await buildServer(db, config);
await server.app.listen({ port: config.port, host: config.host });

const address = server.app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const url = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
// Printed for the person who started the server, not logged: the sign-in link opens the owner's account.
process.stdout.write(`
rtcscope is running at ${url}
  database:   ${embedded ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}
${
  project
    ? localProjectBanner(url, project, signInToken!)
    : `  projects:   none made here (LOCAL_PROJECT=off): people sign up at ${url}/sign-up, or an operator runs
              node --import tsx apps/server/src/admin.ts create-project "<name>"
`
}`);

function localProjectBanner(at: string, p: LocalProject, token: string): string {
  return `  sign in:    ${linkUrl(at, 'sign-in-link', token)}&project=${p.projectId}
              (one-time link for ${LOCAL_OWNER}, the owner, good for 24 hours; each start prints a new one)
  demo call:  ${at}/demo
  ingest key: ${p.ingestKey}
  API key:    ${p.apiKey} (every scope, for programs: Authorization: Bearer …)
  API docs:   ${at}/api/docs
  lab agent:  ${config.localLabAgent ? 'running beside the server (LOCAL_LAB_AGENT=on)' : `pnpm --silent lab agent --server ${at} --token ${p.agentToken}`}
  TURN:       ${turn ? `coturn running beside the server at ${turn.urls.join(', ')} (LOCAL_TURN=on); TLS on the same port with the self-signed ${turn.certificate}` : "none (install Debian's coturn package and start again, or give the project your own: PUT /api/v1/project/turn)"}

Monitor a call from your page:
  <script src="${at}/sdk/rtcscope.js"></script>
  <script>RtcScope.createMonitor({ server: '${at}', ingestKey: '${p.ingestKey}', callId: 'my-call', participantId: 'alice' }).addPeerConnection(pc);</script>
`;
}

const agent = config.localLabAgent && project ? startLocalAgent(url, project.agentToken) : null;

/** How long a shutdown may take: under the 30 s an orchestrator waits before it kills the process. */
const STOP_DEADLINE_MS = 20_000;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  server.app.log.info({ signal }, 'shutting down');
  process.stdout.write(`\nstopping rtcscope (${signal})…\n`);
  const postgres = { name: 'the embedded PostgreSQL', stop: async () => embedded?.stop() };
  const stopped = await stopInOrder(
    [
      { name: 'the lab agent', stop: async () => agent?.stop() },
      { name: 'the TURN server', stop: async () => turn?.stop() },
      { name: 'the server (its requests, sockets and jobs)', stop: () => server.close() },
      { name: 'the database pool', stop: () => db.close() },
      postgres,
    ],
    STOP_DEADLINE_MS,
    async (step, rest) => {
      // What was acknowledged is stored already; only the embedded database must not outlive the process.
      server.app.log.error({ step }, 'shutdown overdue');
      process.stdout.write(`rtcscope did not stop within ${STOP_DEADLINE_MS / 1000} s: still stopping ${step}; exiting anyway\n`);
      if (rest.includes(postgres)) await postgres.stop().catch(() => {});
    },
  );
  if (stopped) process.stdout.write('rtcscope stopped\n');
  process.exit(stopped ? 0 : 1);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
