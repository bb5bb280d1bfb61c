import {
  type AgentInfo,
  type CampaignDetail,
  type CampaignParameters,
  type CampaignSummary,
  campaignProgress,
  type planCampaign,
  type RunInfo,
  type RunResult,
  type RunStatus,
} from '@rtcscope/experiments';
import { hashKey, newKey } from '../identity/keys/keys.js';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';

/** The lab's stored campaigns, runs and agents, as the API shows them; only the caller's project is ever read. */

interface SummaryRow {
  id: string;
  name: string;
  scenario_id: string;
  title: string;
  time_scale: number;
  created_at: Date;
  counts: Record<RunStatus, number>;
  total: number;
  progress: number;
}

/** Runs' states decide the campaign's: anything running or waiting first, then how it ended. */
function campaignStatus(counts: Partial<Record<RunStatus, number>>): RunStatus {
  for (const s of ['running', 'queued', 'cancelled', 'failed'] as const) if (counts[s]) return s;
  return 'done';
}

// Progress here is campaignProgress's rule in SQL, so the list needs no runs.
const SUMMARY_SQL = `
  SELECT c.id, c.name, c.scenario->>'id' AS scenario_id, c.scenario->>'title' AS title, c.created_at,
         coalesce((c.parameters->>'timeScale')::float8, (c.scenario->>'timeScale')::float8, 1) AS time_scale,
         (SELECT jsonb_object_agg(status, n) FROM (SELECT status, count(*)::int AS n FROM lab_run WHERE campaign_id = c.id GROUP BY status) s) AS counts,
         (SELECT count(*)::int FROM lab_run WHERE campaign_id = c.id) AS total,
         (SELECT coalesce(sum(CASE WHEN status = 'running' THEN progress WHEN status = 'queued' THEN 0 ELSE 1 END), 0)::float8 FROM lab_run WHERE campaign_id = c.id) AS progress
  FROM lab_campaign c WHERE c.project_id = $1`;

function toSummary(r: SummaryRow): CampaignSummary {
  return {
    id: Number(r.id),
    name: r.name,
    scenarioId: r.scenario_id,
    scenarioTitle: r.title,
    timeScale: r.time_scale,
    createdAt: r.created_at.getTime(),
    status: campaignStatus(r.counts),
    counts: r.counts,
    total: r.total,
    progress: r.total ? r.progress / r.total : 0,
  };
}

type RunRow = Prisma.LabRunGetPayload<{ include: { agent: { select: { name: true } } } }>;

function toRunInfo(r: RunRow): RunInfo {
  const result = r.result as RunResult | null;
  return {
    id: Number(r.id),
    campaignId: Number(r.campaignId),
    variant: r.variant,
    repetition: r.repetition,
    status: r.status as RunStatus,
    progress: r.progress,
    message: r.message,
    callId: r.callId,
    callIds: result?.calls.map((c) => c.callId) ?? [],
    agent: r.agent?.name ?? null,
    startedAt: r.startedAt?.getTime() ?? null,
    finishedAt: r.finishedAt?.getTime() ?? null,
    error: r.error,
    outcome: r.outcome ?? null,
  };
}

/** A campaign with its runs and what each measured, or null when the project has no such campaign. */
export async function campaignDetail(db: Database, projectId: string, id: number): Promise<CampaignDetail | null> {
  const campaign = await db.prisma.labCampaign.findFirst({ where: { id: BigInt(id), projectId } });
  if (!campaign) return null;
  const [{ rows }, runs] = await Promise.all([
    db.pool.query<SummaryRow>(`${SUMMARY_SQL} AND c.id = $2`, [projectId, id]),
    db.prisma.labRun.findMany({
      where: { campaignId: campaign.id },
      orderBy: [{ variant: 'asc' }, { repetition: 'asc' }],
      include: { agent: { select: { name: true } } },
    }),
  ]);
  const parameters = campaign.parameters as CampaignParameters;
  const runInfos = runs.map(toRunInfo);
  return {
    campaign: { ...toSummary(rows[0]!), progress: campaignProgress(runInfos) },
    scenario: campaign.scenario,
    parameters,
    variants: parameters.codecs?.map((c) => `codec ${c}`) ?? ['as set'],
    runs: runInfos,
  };
}

/** The project's newest 200 campaigns with their progress. */
export async function listCampaigns(db: Database, projectId: string): Promise<CampaignSummary[]> {
  const { rows } = await db.pool.query<SummaryRow>(`${SUMMARY_SQL} ORDER BY c.id DESC LIMIT 200`, [projectId]);
  return rows.map(toSummary);
}

/** Queues a planned campaign: a run per variant and repetition. Returns its id. */
export async function createCampaign(
  db: Database,
  projectId: string,
  plan: Extract<ReturnType<typeof planCampaign>, { ok: true }>['value'],
  parameters: CampaignParameters,
  name: string | undefined,
): Promise<number> {
  const created = await db.prisma.labCampaign.create({
    data: {
      projectId,
      name: name ?? plan.name,
      scenario: plan.scenario,
      parameters,
      runs: {
        create: plan.variants.flatMap((v, variant) =>
          [...Array(plan.repetitions).keys()].map((k) => ({ projectId, variant, repetition: k + 1, scenario: v.scenario })),
        ),
      },
    },
  });
  return Number(created.id);
}

export async function campaignExists(db: Database, projectId: string, id: number): Promise<boolean> {
  return (await db.prisma.labCampaign.count({ where: { id: BigInt(id), projectId } })) > 0;
}

/** A run as the API shows it, or null when the project has no such run. */
export async function loadRun(db: Database, projectId: string, id: number): Promise<RunInfo | null> {
  const run = await db.prisma.labRun.findFirst({ where: { id: BigInt(id), projectId }, include: { agent: { select: { name: true } } } });
  return run && toRunInfo(run);
}

const toAgentInfo = (
  a: { id: bigint; name: string; host: string | null; lastSeenAt: Date | null; capabilities: unknown },
  connected: Set<number>,
): AgentInfo => ({
  id: Number(a.id),
  name: a.name,
  host: a.host,
  connected: connected.has(Number(a.id)),
  lastSeenAt: a.lastSeenAt?.getTime() ?? null,
  capabilities: (a.capabilities as AgentInfo['capabilities']) ?? null,
});

/** The project's agents, and which of `connected` (agent ids connected to any node) they are. */
export async function listAgents(db: Database, projectId: string, connected: Set<number>): Promise<AgentInfo[]> {
  const rows = await db.prisma.labAgent.findMany({ where: { projectId }, orderBy: { id: 'asc' } });
  return rows.map((a) => toAgentInfo(a, connected));
}

/** A new agent and its token, shown this once: only its hash is kept. */
export async function createAgent(db: Database, projectId: string, name: string): Promise<{ agent: AgentInfo; token: string }> {
  const token = newKey('at');
  const agent = await db.prisma.labAgent.create({ data: { projectId, name, tokenHash: hashKey(token) } });
  return { agent: toAgentInfo(agent, new Set()), token };
}

/** Deletes an agent of the project; false when it has none of that id. */
export async function deleteAgent(db: Database, projectId: string, id: number): Promise<boolean> {
  const { count } = await db.prisma.labAgent.deleteMany({ where: { id: BigInt(id), projectId } });
  return count > 0;
}
