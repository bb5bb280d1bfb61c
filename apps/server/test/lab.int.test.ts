import {
  type AgentCreated,
  type AgentHello,
  type AgentList,
  type CampaignDetail,
  type CampaignList,
  headline,
  type Job,
  readOutcome,
  type RunInfo,
  type RunResult,
} from '@rtcscope/experiments';
import { type CallList, SAMPLE_HEAD, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSend, count, eventually, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2, { labAgentGraceS: 2 });
});
afterAll(() => t.close());

const OPEN = { rateKbps: null, delayMs: 0, jitterMs: 0, loss: { model: 'random' as const, pct: 0 }, queueMs: null };
const HELLO: AgentHello = {
  name: 'lab-host-1',
  host: 'lab-host-1.example',
  version: 'test',
  capabilities: { backends: ['user-space relay'], backend: 'user-space relay', maxConcurrentCalls: 2, cores: 2, chromium: 'test' },
  running: [],
};

type Ack<T = object> = ({ ok: true } & T) | { ok: false; error: string };

async function newAgent(url: string, apiKey: string, name: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/lab/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as AgentCreated).token;
}

/** An agent speaking the real protocol, driven step by step by the test. */
async function agentSocket(url: string, token: string, hello: AgentHello | null = HELLO): Promise<Socket> {
  const socket = io(`${url}/agent`, { auth: { token }, transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  if (hello) expect(await socket.timeout(5000).emitWithAck('hello', hello)).toMatchObject({ ok: true });
  return socket;
}

const next = async (s: Socket) => (await s.timeout(5000).emitWithAck('next')) as Ack<{ job: Job | null }>;
const campaign = (id: number, key = t.projects[0]!.apiKey) => api<CampaignDetail>(t, `/lab/campaigns/${id}`, key);
/** Stores a short call: p0 sends 800 kbit/s of video to p1 for `seconds`. */
async function storeCall(callId: string, t0: number, seconds: number) {
  const at = (name: StreamFieldName) => SAMPLE_HEAD.length + streamFieldIndex(name);
  const p = t.projects[0]!;
  for (const [participant, direction] of [
    ['p0', 'out'],
    ['p1', 'in'],
  ] as const) {
    const socket = await ingestSocket(t.url, handshake(p, callId, participant));
    const rows = [...Array(seconds).keys()].map((k) => {
      const row: (number | null)[] = [0, k, k * 1000, 800, 70, 1];
      row[at('fps')] = 30;
      row[at('height')] = 360;
      if (direction === 'out') row[at('rttMs')] = 40;
      else row[at('lossPct')] = 0.5;
      return row;
    });
    const ack = await send(socket, {
      n: 0,
      t0,
      conns: [{ i: 0, key: 'pc1' }],
      streams: [{ i: 0, conn: 0, direction, kind: 'video', ssrc: direction === 'out' ? 1 : 2 }],
      s: rows,
      c: [],
      e: [],
    });
    expect(ack).toMatchObject({ ok: true });
    socket.disconnect();
  }
}

describe('campaigns', () => {
  it('queues a run per variant and repetition, and refuses a broken scenario naming the field', async () => {
    const key = t.projects[0]!.apiKey;
    const created = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', key, {
      scenario: 'bw-steps',
      parameters: { timeScale: 0.25, repetitions: 2, codecs: ['VP8', 'VP9'], video: { width: 640, height: 360, fps: 30 } },
    });
    expect(created.status).toBe(201);
    expect(created.body.campaign).toMatchObject({ scenarioId: 'bw-steps', status: 'queued', total: 4, progress: 0 });
    expect(created.body.variants).toEqual(['codec VP8', 'codec VP9']);
    expect(created.body.runs.map((r) => [r.variant, r.repetition, r.status])).toEqual([
      [0, 1, 'queued'],
      [0, 2, 'queued'],
      [1, 1, 'queued'],
      [1, 2, 'queued'],
    ]);

    const before = await count(t.db, 'lab_run');
    const broken = await apiSend<{ message: string }>(t, 'POST', '/lab/campaigns', key, {
      scenario: {
        id: 'mine',
        title: 'Mine',
        participants: { count: 2, topology: 'pair', video: { width: 640, height: 360, fps: 30 } },
        links: { mode: 'shared', bottleneck: {} },
        durationS: 60,
        schedule: [{ at: 90, set: { rateKbps: 500 } }],
      },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/^scenario\.schedule\[0\]\.at: 90 s is after the end/);
    const unknown = await apiSend<{ message: string }>(t, 'POST', '/lab/campaigns', key, { scenario: 'no-such' });
    expect(unknown.body.message).toMatch(/not a built-in scenario/);
    const badParam = await apiSend<{ message: string }>(t, 'POST', '/lab/campaigns', key, {
      scenario: 'bw-steps',
      parameters: { timeScale: 2 },
    });
    expect(badParam.status).toBe(400);
    expect(badParam.body.message).toMatch(/timeScale/);
    expect(await count(t.db, 'lab_run')).toBe(before);
    await apiSend(t, 'POST', `/lab/campaigns/${created.body.campaign.id}/cancel`, key);
  });

  it('keeps campaigns, runs and agents to their project', async () => {
    const [a, b] = t.projects as [(typeof t.projects)[0], (typeof t.projects)[0]];
    const created = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', a.apiKey, {
      scenario: 'static-bw',
      parameters: { repetitions: 1 },
    });
    const id = created.body.campaign.id;
    expect((await campaign(id, b.apiKey)).status).toBe(404);
    expect((await apiSend(t, 'POST', `/lab/campaigns/${id}/cancel`, b.apiKey)).status).toBe(404);
    expect((await apiSend(t, 'POST', `/lab/runs/${created.body.runs[0]!.id}/cancel`, b.apiKey)).status).toBe(404);
    expect((await api<CampaignList>(t, '/lab/campaigns', b.apiKey)).body.campaigns.map((c) => c.id)).not.toContain(id);
    const other = await agentSocket(t.url, await newAgent(t.url, b.apiKey, 'b-agent'));
    expect(await next(other)).toEqual({ ok: true, job: null });
    other.disconnect();
    await apiSend(t, 'POST', `/lab/campaigns/${id}/cancel`, a.apiKey);
  });
});

describe('agents', () => {
  it('refuses unknown tokens and bad hellos, and lists who is connected', async () => {
    const key = t.projects[0]!.apiKey;
    await expect(agentSocket(t.url, 'at_wrong', null)).rejects.toThrow(/unknown agent token/);
    const token = await newAgent(t.url, key, 'listed');
    const socket = await agentSocket(t.url, token, null);
    expect(await next(socket)).toEqual({ ok: false, error: 'say hello first' });
    const bad = (await socket
      .timeout(5000)
      .emitWithAck('hello', { ...HELLO, capabilities: { ...HELLO.capabilities, maxConcurrentCalls: 0 } })) as Ack;
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^hello capabilities\.maxConcurrentCalls/) });
    await socket.timeout(5000).emitWithAck('hello', HELLO);
    const listed = (await api<AgentList>(t, '/lab/agents', key)).body.agents.find((a) => a.name === 'listed');
    expect(listed).toMatchObject({ connected: true, host: 'lab-host-1.example', capabilities: { maxConcurrentCalls: 2 } });
    socket.disconnect();
    const revoked = (await api<AgentList>(t, '/lab/agents', key)).body.agents.find((a) => a.name === 'listed')!;
    expect((await apiSend(t, 'DELETE', `/lab/agents/${revoked.id}`, key)).status).toBe(204);
    await expect(agentSocket(t.url, token, null)).rejects.toThrow(/unknown agent token/);
  });

  it('runs a job: progress, a report summarized from the stored samples, a resent report stored once', async () => {
    const key = t.projects[0]!.apiKey;
    const agent = await agentSocket(t.url, await newAgent(t.url, key, 'runner'));
    const created = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', key, {
      scenario: 'static-bw',
      parameters: { repetitions: 1, timeScale: 0.1 },
    });
    const claimed = await next(agent);
    if (!claimed.ok || !claimed.job) throw new Error('no job');
    const { job } = claimed;
    expect(job).toMatchObject({
      campaignId: created.body.campaign.id,
      repetition: 1,
      ingestKey: t.projects[0]!.ingestKey,
      scenario: { id: 'static-bw', timeScale: 0.1 },
    });
    expect(await next(agent)).toEqual({ ok: true, job: null });

    const callId = `lab-${job.runId}`;
    // Seen an hour ago; its progress report says it is there now.
    await t.db.pool.query(`UPDATE lab_agent SET last_seen_at = now() - interval '1 hour' WHERE name = 'runner'`);
    expect(await agent.timeout(5000).emitWithAck('progress', { runId: job.runId, fraction: 0.5, message: 'half way', callId })).toEqual({
      ok: true,
    });
    const runner = (await api<AgentList>(t, '/lab/agents', key)).body.agents.find((a) => a.name === 'runner')!;
    expect(runner.lastSeenAt).toBeGreaterThan(Date.now() - 60_000);
    expect(await agent.timeout(5000).emitWithAck('progress', { runId: job.runId, fraction: 2, message: 'x' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^progress fraction/),
    });
    let detail = (await campaign(job.campaignId)).body;
    expect(detail.campaign).toMatchObject({ status: 'running', progress: 0.5 });
    expect(detail.runs[0]).toMatchObject({ status: 'running', message: 'half way', callId, agent: 'runner' });

    const t0 = Date.now() - 30_000;
    await storeCall(callId, t0, 20);
    const result: RunResult = {
      callId,
      calls: [{ callId, joinedAt: 0, leftAt: 20 }],
      startedAt: t0,
      endedAt: t0 + 20_000,
      // The uplink of the sender is capped at 1000 kbit/s after 10 s: two phases, the second 80 % used.
      applied: [
        { t: 0, link: 'p0-up', state: { ...OPEN, rateKbps: null } },
        { t: 10, link: 'p0-up', state: { ...OPEN, rateKbps: 1000 } },
      ],
      backend: 'user-space relay',
    };
    const report = { runId: job.runId, ok: true, result };
    expect(await agent.timeout(10_000).emitWithAck('report', report)).toEqual({ ok: true });
    expect(await agent.timeout(10_000).emitWithAck('report', report)).toEqual({ ok: true });
    detail = (await campaign(job.campaignId)).body;
    expect(detail.campaign).toMatchObject({ status: 'done', progress: 1 });
    const run = detail.runs[0]!;
    const outcome = readOutcome(run.outcome);
    expect(run).toMatchObject({ status: 'done', callIds: [callId] });
    const sender = outcome.run.flows.find((f) => f.participant === 'p0')!;
    expect(sender.meanKbps).toBeCloseTo(800);
    expect(sender.phases.map((p) => [p.from, p.capKbps, p.utilization])).toEqual([
      [0, null, null],
      [10, 1000, expect.closeTo(0.8)],
    ]);
    expect(outcome.run.flows.find((f) => f.participant === 'p1')!.meanFps).toBeCloseTo(30);
    // The campaign's mean loss, RTT and FPS are the calls list's: one definition of each.
    const listed = (await api<CallList>(t, `/calls?q=${callId}`, key)).body.calls.find((c) => c.id === callId)!;
    const figures = headline(outcome);
    expect([figures.lossPct, figures.rttMs, figures.fps]).toEqual([listed.meanLossPct, listed.meanRttMs, listed.meanFps]);
    agent.disconnect();
  });

  it('stops a cancelled run on its agent and refuses its progress', async () => {
    const key = t.projects[0]!.apiKey;
    const agent = await agentSocket(t.url, await newAgent(t.url, key, 'cancelled'));
    await apiSend(t, 'POST', '/lab/campaigns', key, { scenario: 'static-delay', parameters: { repetitions: 1 } });
    const claimed = await next(agent);
    if (!claimed.ok || !claimed.job) throw new Error('no job');
    const told = new Promise<{ runId: number }>((resolve) => agent.once('cancel', resolve));
    const cancelled = await apiSend<RunInfo>(t, 'POST', `/lab/runs/${claimed.job.runId}/cancel`, key);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect(await told).toEqual({ runId: claimed.job.runId });
    expect(
      await agent.timeout(5000).emitWithAck('progress', { runId: claimed.job.runId, fraction: 0.1, message: 'still going' }),
    ).toMatchObject({ ok: false });
    agent.disconnect();
  });

  it('fails the run of an agent that goes silent, saying which agent and since when', async () => {
    const key = t.projects[0]!.apiKey;
    const agent = await agentSocket(t.url, await newAgent(t.url, key, 'doomed'));
    const created = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', key, {
      scenario: 'static-loss',
      parameters: { repetitions: 1 },
    });
    const claimed = await next(agent);
    if (!claimed.ok || !claimed.job) throw new Error('no job');
    agent.disconnect();
    const run = await eventually(
      async () => (await campaign(created.body.campaign.id)).body.runs[0]!,
      (r) => r.status === 'failed',
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(
      /^agent "doomed" stopped reporting during the run \(last heard \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, more than 2 s ago\)/,
    );
  });
});

describe('durability', () => {
  it('loses no queued job across a server restart, and lets a reconnecting agent finish its running run', async () => {
    const key = t.projects[0]!.apiKey;
    const token = await newAgent(t.url, key, 'survivor');
    const agent = await agentSocket(t.url, token);
    const created = await apiSend<CampaignDetail>(t, 'POST', '/lab/campaigns', key, {
      scenario: 'handoff',
      parameters: { repetitions: 2 },
    });
    const first = await next(agent);
    if (!first.ok || !first.job) throw new Error('no job');
    agent.disconnect();

    await t.restart();

    const back = await agentSocket(t.url, token, { ...HELLO, running: [first.job.runId] });
    const second = await next(back);
    if (!second.ok || !second.job) throw new Error('the queued run was lost');
    expect(second.job).toMatchObject({ campaignId: created.body.campaign.id, repetition: 2 });
    expect(await back.timeout(5000).emitWithAck('progress', { runId: first.job.runId, fraction: 0.9, message: 'still here' })).toEqual({
      ok: true,
    });
    expect(await back.timeout(5000).emitWithAck('report', { runId: first.job.runId, ok: false, error: 'Chromium crashed' })).toEqual({
      ok: true,
    });
    const runs = (await campaign(created.body.campaign.id)).body.runs;
    expect(runs.map((r) => [r.repetition, r.status, r.error])).toEqual([
      [1, 'failed', 'Chromium crashed'],
      [2, 'running', null],
    ]);
    back.disconnect();
  });
});
