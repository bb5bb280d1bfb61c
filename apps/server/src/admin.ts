// Operator commands against the database a deployment uses (DATABASE_URL):
//   node --import tsx apps/server/src/admin.ts create-project "<name>"
// prints the new project's ingest key, API key and a lab agent token, each shown only this once.
//   node --import tsx apps/server/src/admin.ts invite <project-id> <email> [--role owner]
// prints a single-use invitation link into the project's organization (its first owner, for projects
// made before people and organizations existed).
//   node --import tsx apps/server/src/admin.ts list-projects
//   node --import tsx apps/server/src/admin.ts set-ingest-limit <project-id> <samples-per-second|default>
//   node --import tsx apps/server/src/admin.ts set-live-call-limit <project-id> <calls|default>
//   node --import tsx apps/server/src/admin.ts delete-project <project-id> "<name>"
import { Command } from 'commander';
import { ROLES, type Role } from '@rtcscope/protocol';
import { invite } from './identity/accounts/invitations.js';
import { linkUrl } from './identity/accounts/links.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashKey, createProject, newKey } from './identity/keys/keys.js';
import { announceProjectChange, PROJECT_ID } from './identity/projects/changes.js';
import { loadConfig, MAX_INGEST_LIMIT, MAX_LIVE_CALLS, MIN_INGEST_LIMIT } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { deleteProject } from './identity/projects/deletion.js';
import { type Actor, audit } from './identity/audit/log.js';
import { purgeSamples } from './samples/purge.js';

/** Operator commands act as the deployment's operator, in the audit log. */
const OPERATOR: Actor = { kind: 'system', id: null, label: 'operator (rtcscope-admin)', ip: null };

/** How long a node may still be writing a batch it took before it heard that its project was deleted. */
const IN_FLIGHT_S = 5;

/** Runs `work` on the deployment's database (DATABASE_URL). */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const { databaseUrl } = loadConfig();
  if (!databaseUrl) throw new Error("set DATABASE_URL to the deployment's PostgreSQL");
  const db = await openDatabase(databaseUrl);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Sets one of a project's limits (null: the deployment's) and tells every node; says what it set. */
function setLimit(given: string, limit: 'ingestLimit' | 'liveCallLimit', value: number | null, said: string): Promise<void> {
  const projectId = checkProjectId(given);
  return withDatabase(async (db) => {
    const updated = await db.prisma.$transaction(async (tx) => {
      const { count } = await tx.project.updateMany({ where: { id: projectId }, data: { [limit]: value } });
      if (count) await announceProjectChange(tx, { projectId, deleted: false });
      return count;
    });
    if (!updated) throw new Error(`no project ${projectId}`);
    process.stdout.write(`project ${projectId}: ${said}\n`);
  });
}

const cli = new Command('rtcscope-admin').description('operator commands for a deployment (DATABASE_URL)');

cli
  .command('create-project')
  .argument('<name>', "the customer's or team's name")
  .description('create a project; prints its keys once (only their hashes are kept, except the publishable ingest key)')
  .action((name: string) =>
    withDatabase(async (db) => {
      const project = await createProject(db, name);
      const agentToken = newKey('at');
      await db.prisma.labAgent.create({ data: { projectId: project.projectId, name: 'agent', tokenHash: hashKey(agentToken) } });
      process.stdout.write(`project ${project.name} (${project.projectId})
  ingest key:  ${project.ingestKey}
  API key:     ${project.apiKey}      (dashboard: <url>/#key=…)
  agent token: ${agentToken}      (pnpm --silent lab agent --server <url> --token …)
`);
    }),
  );

cli
  .command('invite')
  .argument('<project-id>', 'a project of the organization, as list-projects shows it')
  .argument('<email>', 'who is invited')
  .option('--role <role>', `the role they get: ${ROLES.join(', ')}`, 'owner')
  .description("print a single-use invitation link (good for 7 days) into the project's organization; links point at PUBLIC_URL")
  .action((given: string, email: string, { role }: { role: string }) => {
    const projectId = checkProjectId(given);
    if (!(ROLES as readonly string[]).includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}; got "${role}"`);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`"${email}" is not an email address`);
    return withDatabase(async (db) => {
      const made = await db.prisma.$transaction(async (tx) => {
        const project = await tx.project.findUnique({ where: { id: projectId }, select: { organizationId: true } });
        if (!project) return null;
        const { organizationId } = project;
        const invitation = await invite(tx, organizationId, email, role as Role, null);
        await audit(tx, OPERATOR, { organizationId, action: 'member.invited', target: email, detail: { role } });
        return invitation;
      });
      if (!made) throw new Error(`no project ${projectId}`);
      const base = loadConfig().publicUrl ?? '<url>';
      process.stdout.write(`invitation for ${email} as ${role}, single use, for 7 days:\n  ${linkUrl(base, 'invite', made.token)}\n`);
    });
  });

cli
  .command('list-projects')
  .description(
    'list projects: id, name, retention, ingest limit, calls started in the last 24 hours and live now, and when a call or an API key was last seen (UTC): projects nobody uses any more stand out',
  )
  .action(() =>
    withDatabase(async (db) => {
      const { projectIngestLimit } = loadConfig();
      const { prisma } = db;
      const dayAgo = new Date(Date.now() - 86_400_000);
      const [projects, day, live, lastCall, lastKey] = await Promise.all([
        prisma.project.findMany({
          orderBy: { createdAt: 'asc' },
          select: { id: true, name: true, retentionDays: true, ingestLimit: true },
        }),
        prisma.call.groupBy({ by: ['projectId'], where: { startedAt: { gt: dayAgo } }, _count: true }),
        prisma.call.groupBy({ by: ['projectId'], where: { endedAt: null }, _count: true }),
        prisma.call.groupBy({ by: ['projectId'], _max: { lastSeenAt: true } }),
        prisma.apiKey.groupBy({ by: ['projectId'], _max: { lastUsedAt: true } }),
      ]);
      const of = <T extends { projectId: string }>(rows: T[], projectId: string) => rows.find((r) => r.projectId === projectId);
      const rows = projects.map((p) => ({
        id: p.id,
        name: p.name,
        retention: p.retentionDays,
        limit: p.ingestLimit,
        day: of(day, p.id)?._count ?? 0,
        live: of(live, p.id)?._count ?? 0,
        lastCall: of(lastCall, p.id)?._max.lastSeenAt ?? null,
        lastKey: of(lastKey, p.id)?._max.lastUsedAt ?? null,
      }));
      const when = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never');
      const deployment = projectIngestLimit === null ? 'none (deployment)' : `${projectIngestLimit} (deployment)`;
      const table = [
        ['id', 'name', 'retention', 'ingest limit /s/node', 'calls 24 h', 'live', 'last call', 'last API use'],
        ...rows.map((r) => [
          r.id,
          r.name,
          `${r.retention} days`,
          r.limit === null ? deployment : String(r.limit),
          String(r.day),
          String(r.live),
          when(r.lastCall),
          when(r.lastKey),
        ]),
      ];
      const widths = table[0]!.map((_, k) => Math.max(...table.map((row) => row[k]!.length)));
      process.stdout.write(
        table
          .map((row) =>
            row
              .map((cell, k) => cell.padEnd(widths[k]!))
              .join('  ')
              .trimEnd(),
          )
          .join('\n') + '\n',
      );
    }),
  );

cli
  .command('set-ingest-limit')
  .argument('<project-id>', 'the project, as create-project printed it')
  .argument(
    '<limit>',
    `samples a second the project may send to each node (${MIN_INGEST_LIMIT} to ${MAX_INGEST_LIMIT}), or "default" for the deployment's PROJECT_INGEST_LIMIT`,
  )
  .description("set a project's ingest limit; every node applies it at once (within a minute if it missed the notice)")
  .action((given: string, limit: string) => {
    const ingestLimit = limit === 'default' ? null : Number(limit);
    if (ingestLimit !== null && !(Number.isInteger(ingestLimit) && ingestLimit >= MIN_INGEST_LIMIT && ingestLimit <= MAX_INGEST_LIMIT)) {
      throw new Error(
        `limit must be a whole number of samples a second from ${MIN_INGEST_LIMIT} to ${MAX_INGEST_LIMIT}, or "default"; got "${limit}"`,
      );
    }
    return setLimit(
      given,
      'ingestLimit',
      ingestLimit,
      `ingest limit ${ingestLimit === null ? "the deployment's (PROJECT_INGEST_LIMIT)" : `${ingestLimit} samples a second on each node`}`,
    );
  });

cli
  .command('set-live-call-limit')
  .argument('<project-id>', 'the project, as create-project printed it')
  .argument(
    '<limit>',
    `calls the project may have live at once (1 to ${MAX_LIVE_CALLS}), or "default" for the deployment's PROJECT_LIVE_CALLS`,
  )
  .description(
    'set how many calls a project may have live at once; every node applies it at once (within a minute if it missed the notice)',
  )
  .action((given: string, limit: string) => {
    const liveCallLimit = limit === 'default' ? null : Number(limit);
    if (liveCallLimit !== null && !(Number.isInteger(liveCallLimit) && liveCallLimit >= 1 && liveCallLimit <= MAX_LIVE_CALLS)) {
      throw new Error(`limit must be a whole number of calls from 1 to ${MAX_LIVE_CALLS}, or "default"; got "${limit}"`);
    }
    return setLimit(
      given,
      'liveCallLimit',
      liveCallLimit,
      `live calls ${liveCallLimit === null ? "the deployment's (PROJECT_LIVE_CALLS)" : `at most ${liveCallLimit} at once`}`,
    );
  });

cli
  .command('delete-project')
  .argument('<project-id>', 'the project, as list-projects shows it')
  .argument('<name>', "the project's name, as confirmation: both must match, so a mistyped id deletes nothing")
  .description('delete a project and all of its data (keys, calls, samples, lab runs) for good; every node stops serving it at once')
  .action((given: string, name: string) => {
    const projectId = checkProjectId(given);
    return withDatabase(async (db) => {
      const deleted = await deleteProject(db, projectId, name, (tx, { organizationId, calls }) =>
        audit(tx, OPERATOR, { organizationId, action: 'project.deleted', projectId, target: name, detail: { calls } }),
      );
      if (!deleted) throw new Error(`no project ${projectId} named "${name}": nothing was deleted (list-projects shows ids and names)`);
      process.stdout.write(`project ${deleted.name} (${projectId}) deleted, with its ${deleted.calls} calls; deleting its samples…\n`);
      const samples = await purgeSamples(db.pool, deleted);
      process.stdout.write(
        `${samples} rows of samples deleted; waiting ${IN_FLIGHT_S} s for batches nodes took before they heard of it…\n`,
      );
      await sleep(IN_FLIGHT_S * 1000);
      process.stdout.write(`done: ${await purgeSamples(db.pool, deleted)} rows of samples written meanwhile deleted\n`);
    });
  });

/** The id as PostgreSQL writes it, which is how nodes compare it. */
function checkProjectId(projectId: string): string {
  const id = projectId.toLowerCase();
  if (!PROJECT_ID.test(id)) throw new Error(`"${projectId}" is not a project id (a UUID, as list-projects shows it)`);
  return id;
}

await cli.parseAsync(process.argv).catch((err: Error) => {
  process.stderr.write(`rtcscope-admin: ${err.message}\n`);
  process.exitCode = 1;
});
