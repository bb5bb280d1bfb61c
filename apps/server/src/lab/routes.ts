import {
  AgentCreate,
  AgentCreated,
  AgentList,
  CampaignCreate,
  CampaignDetail,
  CampaignList,
  planCampaign,
  RunInfo,
} from '@rtcscope/experiments';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { errorBody } from '../http/errors.js';
import type { AgentHub } from './agents.js';
import type { RunQueue } from './queue.js';
import { campaignDetail, campaignExists, createAgent, createCampaign, deleteAgent, listAgents, listCampaigns, loadRun } from './store.js';
import type { LiveHub } from '../live/hub.js';
import { ANSWERS, ID_ANSWERS, IdParams } from '../http/schemas.js';

const notFound = (what: string) => errorBody(404, `no such ${what} in this project`);

export async function labRoutes(
  app: FastifyInstance,
  { db, queue, agents, live }: { db: Database; queue: RunQueue; agents: AgentHub; live: LiveHub },
) {
  app.post<{ Body: CampaignCreate }>(
    '/lab/campaigns',
    {
      schema: {
        summary: 'Queue a campaign: a scenario × parameter variants × repetitions',
        body: CampaignCreate,
        response: { 201: CampaignDetail, ...ANSWERS },
      },
    },
    async (request, reply) => {
      const { scenario: ref, parameters = {}, name } = request.body;
      const plan = planCampaign(ref, parameters);
      if (!plan.ok) return reply.code(400).send(errorBody(400, `${plan.error.field}: ${plan.error.message}`));
      const { projectId } = request;
      const id = await createCampaign(db, projectId, plan.value, parameters, name);
      agents.wake(projectId);
      live.labChanged(projectId, { campaignId: id });
      return reply.code(201).send(await campaignDetail(db, projectId, id));
    },
  );

  app.get(
    '/lab/campaigns',
    { schema: { summary: 'Campaigns, newest first', response: { 200: CampaignList, ...ANSWERS } } },
    async (request) => ({
      campaigns: await listCampaigns(db, request.projectId),
    }),
  );

  app.get<{ Params: { id: number } }>(
    '/lab/campaigns/:id',
    {
      schema: {
        summary: 'A campaign with its runs and what each measured',
        params: IdParams,
        response: { 200: CampaignDetail, ...ID_ANSWERS },
      },
    },
    async (request, reply) =>
      (await campaignDetail(db, request.projectId, request.params.id)) ?? reply.code(404).send(notFound('campaign')),
  );

  async function cancel(projectId: string, target: { runId: number } | { campaignId: number }) {
    const cancelled = await queue.cancel(projectId, target);
    for (const c of cancelled) if (c.agentId !== null) agents.cancel(c.agentId, c.runId);
    for (const c of cancelled) live.labChanged(projectId, { campaignId: c.campaignId, runId: c.runId });
  }

  app.post<{ Params: { id: number } }>(
    '/lab/campaigns/:id/cancel',
    {
      schema: {
        summary: "Cancel a campaign's queued and running runs",
        params: IdParams,
        response: { 200: CampaignDetail, ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      if (!(await campaignExists(db, request.projectId, request.params.id))) return reply.code(404).send(notFound('campaign'));
      await cancel(request.projectId, { campaignId: request.params.id });
      return campaignDetail(db, request.projectId, request.params.id);
    },
  );

  app.post<{ Params: { id: number } }>(
    '/lab/runs/:id/cancel',
    { schema: { summary: 'Cancel one queued or running run', params: IdParams, response: { 200: RunInfo, ...ID_ANSWERS } } },
    async (request, reply) => {
      if (!(await loadRun(db, request.projectId, request.params.id))) return reply.code(404).send(notFound('run'));
      await cancel(request.projectId, { runId: request.params.id });
      return loadRun(db, request.projectId, request.params.id);
    },
  );

  app.get(
    '/lab/agents',
    { schema: { summary: "The project's lab agents and whether they are connected", response: { 200: AgentList, ...ANSWERS } } },
    async (request) => ({
      agents: await listAgents(db, request.projectId, await agents.connectedAgents()),
    }),
  );

  app.post<{ Body: AgentCreate }>(
    '/lab/agents',
    { schema: { summary: 'Create an agent token (shown once)', body: AgentCreate, response: { 201: AgentCreated, ...ANSWERS } } },
    async (request, reply) => {
      const created = await createAgent(db, request.projectId, request.body.name);
      live.labChanged(request.projectId, { campaignId: 0 });
      return reply.code(201).send(created);
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/lab/agents/:id',
    {
      schema: {
        summary: 'Revoke an agent token; its connections close and its running runs fail',
        params: IdParams,
        response: { 204: Type.Null(), ...ID_ANSWERS },
      },
    },
    async (request, reply) => {
      if (!(await deleteAgent(db, request.projectId, request.params.id))) return reply.code(404).send(notFound('agent'));
      agents.disconnect(request.params.id);
      live.labChanged(request.projectId, { campaignId: 0 });
      return reply.code(204).send();
    },
  );
}
