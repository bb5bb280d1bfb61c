// Operator commands against the database a deployment uses (DATABASE_URL):
//   node --import tsx apps/server/src/admin.ts create-project "<name>"
// prints the new project's ingest key, API key and a lab agent token, each shown only this once.
import { Command } from 'commander';
import { hashKey, createProject, newKey } from './auth/keys.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';

const cli = new Command('rtcscope-admin').description('operator commands for a deployment (DATABASE_URL)');

cli
  .command('create-project')
  .argument('<name>', "the customer's or team's name")
  .description('create a project; prints its keys once (only their hashes are kept, except the publishable ingest key)')
  .action(async (name: string) => {
    const { databaseUrl } = loadConfig();
    if (!databaseUrl) throw new Error('set DATABASE_URL to the deployment\'s PostgreSQL');
    const db = await openDatabase(databaseUrl);
    try {
      const project = await createProject(db.prisma, name);
      const agentToken = newKey('at');
      await db.prisma.labAgent.create({ data: { projectId: project.projectId, name: 'agent', tokenHash: hashKey(agentToken) } });
      process.stdout.write(`project ${project.name} (${project.projectId})
  ingest key:  ${project.ingestKey}
  API key:     ${project.apiKey}      (dashboard: <url>/#key=…)
  agent token: ${agentToken}      (pnpm --silent lab agent --server <url> --token …)
`);
    } finally {
      await db.close();
    }
  });

await cli.parseAsync(process.argv);
