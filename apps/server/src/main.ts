import { linkUrl } from './accounts/links.js';
import { ensureLocalProject, type LocalProject, LOCAL_OWNER, localOwnerLink } from './auth/local-project.js';
import { buildServer } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { startLocalAgent } from './lab/local-agent.js';

const config = loadConfig();
const embedded = config.databaseUrl
  ? null
  : await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, (line) => console.error(line));
const db = await openDatabase(config.databaseUrl ?? embedded!.url);
const project = config.localProject ? await ensureLocalProject(db, config.dataDir) : null;
const signInToken = project ? await localOwnerLink(db, project.projectId) : null;
const server = await buildServer(db, config);
await server.app.listen({ port: config.port, host: config.host });

const address = server.app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const url = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
// Printed for the person who started the server, not logged: the sign-in link opens the owner's account.
process.stdout.write(`
rtcscope is running at ${url}
  database:   ${embedded ? `embedded PostgreSQL, data in ${config.dataDir}` : 'DATABASE_URL'}
${project ? localProjectBanner(url, project, signInToken!) : `  projects:   none made here (LOCAL_PROJECT=off): people sign up at ${url}/sign-up, or an operator runs
              node --import tsx apps/server/src/admin.ts create-project "<name>"
`}`);

function localProjectBanner(at: string, p: LocalProject, token: string): string {
  return `  sign in:    ${linkUrl(at, 'sign-in-link', token)}&project=${p.projectId}
              (one-time link for ${LOCAL_OWNER}, the owner, good for 24 hours; each start prints a new one)
  demo call:  ${at}/demo
  ingest key: ${p.ingestKey}
  API key:    ${p.apiKey} (every scope, for programs: Authorization: Bearer …)
  API docs:   ${at}/api/docs
  lab agent:  ${config.localLabAgent ? 'running beside the server (LOCAL_LAB_AGENT=on)' : `pnpm --silent lab agent --server ${at} --token ${p.agentToken}`}

Monitor a call from your page:
  <script src="${at}/sdk/rtcscope.js"></script>
  <script>RtcScope.createMonitor({ server: '${at}', ingestKey: '${p.ingestKey}', callId: 'my-call', participantId: 'alice' }).addPeerConnection(pc);</script>
`;
}

const agent = config.localLabAgent && project ? startLocalAgent(url, project.agentToken) : null;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  server.app.log.info({ signal }, 'shutting down');
  process.stdout.write(`\nstopping rtcscope (${signal})…\n`);
  await agent?.stop();
  await server.close();
  await db.close();
  await embedded?.stop();
  process.stdout.write('rtcscope stopped\n');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
