import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentCreated } from '@rtcscope/experiments';
import { apiSend, startTestServer, type TestServer } from '@rtcscope/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabAgent } from '../agent/agent.js';
import { SfuEventsRelay } from './events-relay.js';
import { JanusSession } from './janus-api.js';
import { JanusServer } from './janus-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(1);
});
afterAll(() => t.close());

const CAPABILITIES = { backends: ['user-space relay'], backend: 'user-space relay', maxConcurrentCalls: 1, cores: 2, chromium: 'none' };

async function storedEvents(): Promise<{ project_id: string; room: string; kind: string; feed: string; detail: { display?: string } }[]> {
  return (await t.db.pool.query("SELECT project_id, room, kind, feed, detail FROM sfu_event WHERE kind = 'joined' ORDER BY id")).rows;
}

describe("a lab agent's Janus reporting its rooms", () => {
  it("reaches the agent's project: Janus's event handler posts to the agent's relay, which sends on over the agent's connection", async () => {
    const logged: string[] = [];
    const { body } = await apiSend<AgentCreated>(t, 'POST', '/lab/agents', t.projects[0]!.apiKey, { name: 'janus-host' });
    const agent = new LabAgent({
      server: t.url,
      token: body.token,
      name: 'janus-host',
      version: 'test',
      capabilities: CAPABILITIES,
      run: () => new Promise(() => {}),
      log: (l) => logged.push(l),
      pollMs: 60_000,
    });
    const relay = await SfuEventsRelay.open((post) => agent.sfuEvents(post));
    const dir = mkdtempSync(join(tmpdir(), 'rtcscope-janus-events-'));
    const janus = await JanusServer.start(dir, relay.target);
    try {
      const session = await JanusSession.create(janus.url);
      const handle = await session.attach('janus.plugin.videoroom');
      await handle.request({ request: 'create', room: 4242, publishers: 2 });
      await handle.request({ request: 'join', room: 4242, ptype: 'publisher', id: 7, display: 'alice' });
      await expect
        .poll(storedEvents, { timeout: 15_000 })
        .toEqual([{ project_id: t.projects[0]!.projectId, room: '4242', kind: 'joined', feed: '7', detail: { display: 'alice' } }]);
      await session.destroy();

      // What is not Janus's events is refused by the server and said in the agent's log.
      expect(await agent.sfuEvents({ janus: 'not an event' })).toBe(false);
      expect(logged).toContainEqual(expect.stringMatching(/^the server refused the SFU's events: sfuEvents/));
    } finally {
      janus.close();
      await relay.close();
      agent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
