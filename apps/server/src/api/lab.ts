import {
  AgentCreate,
  AgentCreated,
  type AgentInfo,
  AgentList,
  CampaignCreate,
  CampaignDetail,
  CampaignList,
  type CampaignParameters,
  type CampaignSummary,
  planCampaign,
  RunInfo,
  type RunResult,
  type RunStatus,
} from '@rtcscope/experiments';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { hashKey, newKey } from '../auth/keys.js';
import type { Database } from '../db/database.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { AgentHub } from '../lab/agents.js';
import type { RunQueue } from '../lab/queue.js';
import type { LiveHub } from '../live/hub.js';
import { errorBody } from '../http/errors.js';
import { ANSWERS, ID_ANSWERS, IdParams } from './schemas.js';

const notFound = (what: string) => errorBody(404, `no such ${what} in this project`);

interface SummaryRow {
  id: string;
  name: string;
  scenario_id: string;
  title: string;
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

const SUMMARY_SQL = `
  SELECT c.id, c.name, c.scenario->>'id' AS scenario_id, c.scenario->>'title' AS title, c.created_at,
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

export async function labRoutes(app: FastifyInstance, { db, queue, agents, live }: { db: Database; queue: RunQueue; agents: AgentHub; live: LiveHub }) {
  async function detail(projectId: string, id: number): Promise<CampaignDetail | null> {
    const campaign = await db.prisma.labCampaign.findFirst({ where: { id: BigInt(id), projectId } });
    if (!campaign) return null;
    const [{ rows }, runs] = await Promise.all([
      db.pool.query<SummaryRow>(`${SUMMARY_SQL} AND c.id = $2`, [projectId, id]),
      db.prisma.labRun.findMany({ where: { campaignId: campaign.id }, orderBy: [{ variant: 'asc' }, { repetition: 'asc' }], include: { agent: { select: { name: true } } } }),
    ]);
    const parameters = campaign.parameters as CampaignParameters;
    return {
      campaign: toSummary(rows[0]!),
      scenario: campaign.scenario,
      parameters,
      variants: parameters.codecs?.map((c) => `codec ${c}`) ?? ['as set'],
      runs: runs.map(toRunInfo),
    };
  }

  app.post<{ Body: CampaignCreate }>(
    '/lab/campaigns',
    { schema: { summary: 'Queue a campaign: a scenario × parameter variants × repetitions', body: CampaignCreate, response: { 201: CampaignDetail, ...ANSWERS } } },
    async (request, reply) => {
      const { scenario: ref, parameters = {}, name } = request.body;
      const plan = planCampaign(ref, parameters);
      if (!plan.ok) return reply.code(400).send(errorBody(400, `${plan.error.field}: ${plan.error.message}`));
      const { projectId } = request;
      const created = await db.prisma.labCampaign.create({
        data: {
          projectId,
          name: name ?? plan.value.scenario.title,
          scenario: plan.value.scenario,
          parameters,
          runs: {
            create: plan.value.variants.flatMap((v, variant) =>
              [...Array(plan.value.repetitions).keys()].map((k) => ({ projectId, variant, repetition: k + 1, scenario: v.scenario })),
            ),
          },
        },
      });
      agents.wake(projectId);
      live.labChanged(projectId, { campaignId: Number(created.id) });
      return reply.code(201).send(await detail(projectId, Number(created.id)));
    },
  );

  app.get('/lab/campaigns', { schema: { summary: 'Campaigns, newest first', response: { 200: CampaignList, ...ANSWERS } } }, async (request) => {
    const { rows } = await db.pool.query<SummaryRow>(`${SUMMARY_SQL} ORDER BY c.id DESC LIMIT 200`, [request.projectId]);
    return { campaigns: rows.map(toSummary) };
  });

  app.get<{ Params: { id: number } }>(
    '/lab/campaigns/:id',
    { schema: { summary: 'A campaign with its runs and what each measured', params: IdParams, response: { 200: CampaignDetail, ...ID_ANSWERS } } },
    async (request, reply) => (await detail(request.projectId, request.params.id)) ?? reply.code(404).send(notFound('campaign')),
  );

  async function cancel(projectId: string, target: { runId: number } | { campaignId: number }) {
    const cancelled = await queue.cancel(projectId, target);
    for (const c of cancelled) if (c.agentId !== null) agents.cancel(c.agentId, c.runId);
    for (const c of cancelled) live.labChanged(projectId, { campaignId: c.campaignId, runId: c.runId });
  }

  app.post<{ Params: { id: number } }>(
    '/lab/campaigns/:id/cancel',
    { schema: { summary: "Cancel a campaign's queued and running runs", params: IdParams, response: { 200: CampaignDetail, ...ID_ANSWERS } } },
    async (request, reply) => {
      const exists = await db.prisma.labCampaign.count({ where: { id: BigInt(request.params.id), projectId: request.projectId } });
      if (!exists) return reply.code(404).send(notFound('campaign'));
      await cancel(request.projectId, { campaignId: request.params.id });
      return detail(request.projectId, request.params.id);
    },
  );

  app.post<{ Params: { id: number } }>(
    '/lab/runs/:id/cancel',
    { schema: { summary: 'Cancel one queued or running run', params: IdParams, response: { 200: RunInfo, ...ID_ANSWERS } } },
    async (request, reply) => {
      const where = { id: BigInt(request.params.id), projectId: request.projectId };
      if (!(await db.prisma.labRun.count({ where }))) return reply.code(404).send(notFound('run'));
      await cancel(request.projectId, { runId: request.params.id });
      return toRunInfo(await db.prisma.labRun.findFirstOrThrow({ where, include: { agent: { select: { name: true } } } }));
    },
  );

  const toAgentInfo = (a: { id: bigint; name: string; host: string | null; lastSeenAt: Date | null; capabilities: unknown }, connected: Set<number>): AgentInfo => ({
    id: Number(a.id),
    name: a.name,
    host: a.host,
    connected: connected.has(Number(a.id)),
    lastSeenAt: a.lastSeenAt?.getTime() ?? null,
    capabilities: (a.capabilities as AgentInfo['capabilities']) ?? null,
  });

  app.get('/lab/agents', { schema: { summary: "The project's lab agents and whether they are connected", response: { 200: AgentList, ...ANSWERS } } }, async (request) => {
    const [rows, connected] = await Promise.all([db.prisma.labAgent.findMany({ where: { projectId: request.projectId }, orderBy: { id: 'asc' } }), agents.connectedAgents()]);
    return { agents: rows.map((a) => toAgentInfo(a, connected)) };
  });

  app.post<{ Body: AgentCreate }>(
    '/lab/agents',
    { schema: { summary: 'Create an agent token (shown once)', body: AgentCreate, response: { 201: AgentCreated, ...ANSWERS } } },
    async (request, reply) => {
      const token = newKey('at');
      const agent = await db.prisma.labAgent.create({ data: { projectId: request.projectId, name: request.body.name, tokenHash: hashKey(token) } });
      live.labChanged(request.projectId, { campaignId: 0 });
      return reply.code(201).send({ agent: toAgentInfo(agent, new Set()), token });
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/lab/agents/:id',
    { schema: { summary: 'Revoke an agent token; its connections close and its running runs fail', params: IdParams, response: { 204: Type.Null(), ...ID_ANSWERS } } },
    async (request, reply) => {
      const { count } = await db.prisma.labAgent.deleteMany({ where: { id: BigInt(request.params.id), projectId: request.projectId } });
      if (!count) return reply.code(404).send(notFound('agent'));
      agents.disconnect(request.params.id);
      live.labChanged(request.projectId, { campaignId: 0 });
      return reply.code(204).send();
    },
  );
}
