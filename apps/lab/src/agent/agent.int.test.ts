import type { AgentCreated, CampaignDetail, Job, RunResult } from '@rtcscope/experiments';
import type { Scenario } from '@rtcscope/scenario';
import { api, apiSend, eventually, startTestServer, type TestServer } from '@rtcscope/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabAgent, type RunJob } from './agent.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(1);
});
afterAll(() => t.close());

const CAPABILITIES = { backends: ['user-space relay'], backend: 'user-space relay', maxConcurrentCalls: 1, cores: 2, chromium: 'none' };

/** A run the test finishes by hand, so the agent's part can be watched step by step. */
function controlledRun() {
  const started: { job: Job; scenario: Scenario; signal: AbortSignal }[] = [];
  let settle: { resolve: (r: RunResult) => void; reject: (e: Error) => void } | null = null;
  const run: RunJob = (job, scenario, signal, progress) =>
    new Promise<RunResult>((resolve, reject) => {
      started.push({ job, scenario, signal });
      progress({ fraction: 0.25, message: 'a quarter done' });
      signal.addEventListener('abort', () => reject(new Error(String(signal.reason))));
      settle = { resolve, reject };
    });
  return { run, started, fail: (message: string) => settle?.reject(new Error(message)) };
}

async function startAgent(run: RunJob, log: (line: string) => void = () => {}): Promise<{ agent: LabAgent; id: number }> {
  const { body } = await apiSend<AgentCreated>(t, 'POST', '/lab/agents', t.projects[0]!.apiKey, { name: `agent-${Date.now()}` });
  const agent = new LabAgent({
    server: t.url,
    token: body.token,
    name: 'test-host',
    version: 'test',
    capabilities: CAPABILITIES,
    run,
    log,
    pollMs: 200,
  });
  return { agent, id: body.agent.id };
}

async function campaignRun(id: number) {
  return (await api<CampaignDetail>(t, `/lab/campaigns/${id}`, t.projects[0]!.apiKey)).body.runs[0]!;
}

describe('lab agent', () => {
  it('takes a queued run, reports progress, and delivers its report after a server restart', async () => {
    const control = controlledRun();
    const { agent } = await startAgent(control.run);
    try {
      const { body } = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', t.projects[0]!.apiKey, {
        scenario: 'static-delay',
        parameters: { timeScale: 0.5 },
      });
      const running = await eventually(
        () => campaignRun(body.campaign.id),
        (r) => r.message === 'a quarter done',
      );
      expect(running).toMatchObject({ status: 'running', progress: 0.25 });
      expect(control.started[0]!.scenario).toMatchObject({ id: 'static-delay', timeScale: 0.5 });

      await t.server.close();
      control.fail('Chromium crashed');
      await t.restart();
      const failed = await eventually(
        () => campaignRun(body.campaign.id),
        (r) => r.status !== 'running',
      );
      expect(failed).toMatchObject({ status: 'failed', error: 'Chromium crashed' });
    } finally {
      agent.close();
    }
  });

  it('stops a run that is cancelled from the dashboard', async () => {
    const control = controlledRun();
    const { agent } = await startAgent(control.run);
    try {
      const { body } = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', t.projects[0]!.apiKey, { scenario: 'static-loss' });
      const running = await eventually(
        () => campaignRun(body.campaign.id),
        (r) => r.status === 'running',
      );
      await apiSend(t, 'POST', `/lab/runs/${running.id}/cancel`, t.projects[0]!.apiKey);
      const started = await eventually(
        async () => control.started[0],
        (s) => s?.signal.aborted === true,
      );
      expect(started?.signal.reason).toBe('cancelled from the dashboard');
      expect(await campaignRun(body.campaign.id)).toMatchObject({ status: 'cancelled' });
    } finally {
      agent.close();
    }
  });

  it('stops its run and says why when its token is revoked, instead of waiting to reconnect', async () => {
    const control = controlledRun();
    const logged: string[] = [];
    const { agent, id } = await startAgent(control.run, (line) => logged.push(line));
    try {
      const { body } = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', t.projects[0]!.apiKey, { scenario: 'static-loss' });
      await eventually(
        () => campaignRun(body.campaign.id),
        (r) => r.status === 'running',
      );
      expect((await apiSend(t, 'DELETE', `/lab/agents/${id}`, t.projects[0]!.apiKey)).status).toBe(204);
      const started = await eventually(
        async () => control.started[0],
        (s) => s?.signal.aborted === true,
      );
      expect(started?.signal.reason).toBe('the agent token was revoked');
      expect(logged).toContainEqual(expect.stringMatching(/^the server ended this connection: the agent token was revoked/));
      expect(logged).not.toContainEqual(expect.stringMatching(/reconnecting/));
    } finally {
      agent.close();
    }
  });
});
