import { createHash } from 'node:crypto';
import { type CallDetail, type LiveKitSettingsInfo, SAMPLE_HEAD, type SfuEventsAccepted, streamFieldIndex } from '@rtcscope/protocol';
import { AccessToken } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, apiSend, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const KEY = 'APIlivekit0';
const SECRET = 's'.repeat(40);
const ROOM = 'team-standup';

/**
 * A webhook as LiveKit's server posts it (livekit/protocol's webhook notifier): the body protobuf's JSON,
 * `Authorization` a JWT of the key, good for 5 minutes, whose `sha256` claim is the body's SHA-256.
 */
async function signed(body: string, key = KEY, secret = SECRET): Promise<string> {
  const token = new AccessToken(key, secret, { ttl: '5m' });
  token.sha256 = createHash('sha256').update(body).digest('base64');
  return token.toJwt();
}

const now = () => String(Math.floor(Date.now() / 1000));
const event = (name: string, identity: string, track?: { sid: string; type?: string; mimeType: string }) => ({
  event: name,
  id: `EV_${Math.random().toString(36).slice(2)}`,
  createdAt: now(),
  room: { sid: 'RM_1', name: ROOM },
  participant: { sid: `PA_${identity}`, identity, state: 'ACTIVE' },
  ...(track ? { track } : {}),
});

async function post(projectId: string, body: string, authorization?: string, contentType = 'application/webhook+json') {
  const res = await fetch(`${t.url}/api/v1/sfu/livekit/webhook/${projectId}`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(authorization === undefined ? {} : { authorization }) },
    body,
  });
  return { status: res.status, body: (await res.json()) as SfuEventsAccepted & { message?: string } };
}

/** A LiveKit participant's SDK (the adapter): its tracks named by their SIDs, a copy of `from`'s video. */
async function monitored(projectIndex: number, participant: string, mine: string, from: string) {
  const socket = await ingestSocket(t.url, handshake(t.projects[projectIndex]!, ROOM, participant));
  const row = (stream: number, k: number) => {
    const r: (number | null)[] = [stream, k, k * 1000];
    r[SAMPLE_HEAD.length + streamFieldIndex('kbps')] = 500;
    return r;
  };
  const ack = await send(socket, {
    n: 0,
    t0: Date.now() - 30_000,
    conns: [{ i: 0, key: 'pc1' }],
    streams: [
      { i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 100, trackId: `livekit:${mine}` },
      { i: 1, conn: 0, direction: 'in', kind: 'video', ssrc: 200, trackId: `livekit:${from}` },
    ],
    s: [0, 1].flatMap((i) => [0, 1, 2].map((k) => row(i, k))),
    c: [],
    e: [],
  });
  expect(ack).toMatchObject({ ok: true });
  socket.disconnect();
}

describe("LiveKit's webhooks", () => {
  it("keeps the key a project's LiveKit signs with and never shows its secret; only the project's admins set it", async () => {
    const p = t.projects[0]!;
    expect((await api<LiveKitSettingsInfo>(t, '/project/livekit', p.apiKey)).body).toEqual({
      livekit: null,
      webhookPath: `/api/v1/sfu/livekit/webhook/${p.projectId}`,
    });
    expect((await apiSend(t, 'PUT', '/project/livekit', p.apiKey, { apiKey: KEY, apiSecret: 'short' })).status).toBe(400);
    const set = await apiSend<LiveKitSettingsInfo>(t, 'PUT', '/project/livekit', p.apiKey, { apiKey: KEY, apiSecret: SECRET });
    expect(set.status).toBe(200);
    expect(set.body.livekit?.apiKey).toBe(KEY);
    expect(JSON.stringify(set.body)).not.toContain(SECRET);
    const ingestOnly = await apiSend<{ apiKey: string }>(t, 'POST', '/project/keys', p.apiKey, { name: 'lk-ingest', scopes: ['ingest'] });
    expect((await api(t, '/project/livekit', ingestOnly.body.apiKey)).status).toBe(403);
  });

  it('keeps a room LiveKit posted, signed as LiveKit signs, each event once however often it comes, and shows it on the call', async () => {
    const p = t.projects[0]!;
    await monitored(0, 'alice', 'TR_alice', 'TR_bob');
    const posts = [
      event('participant_joined', 'alice'),
      event('track_published', 'alice', { sid: 'TR_alice', type: 'VIDEO', mimeType: 'video/VP8' }),
      event('participant_joined', 'bob'),
      // Audio is protobuf's default track type: LiveKit leaves the type out.
      event('track_published', 'bob', { sid: 'TR_bob_mic', mimeType: 'audio/red' }),
      event('egress_started', 'bob'),
    ].map((e) => JSON.stringify(e));
    for (const body of posts) expect((await post(p.projectId, body, await signed(body))).status).toBe(200);
    // LiveKit sends a post again when it had no answer: acknowledged, not stored twice.
    expect((await post(p.projectId, posts[0]!, await signed(posts[0]!))).body).toEqual({ received: 1, stored: 0 });

    const { body } = await api<CallDetail>(t, `/calls/${ROOM}`, p.apiKey);
    expect(body.sfu?.sfu).toBe('livekit');
    expect(body.sfu?.members.map((m) => [m.feed, m.participantId, m.published.map((x) => `${x.kind} ${x.codec}`)])).toEqual([
      ['alice', 'alice', ['video video/VP8']],
      // bob's SDK never reported: the room had him all the same.
      ['bob', null, ['audio audio/red']],
    ]);
  });

  it("refuses what LiveKit did not sign with the project's key, what was changed after, a token past its 5 minutes, bodies over 64 kB and what is not its events, storing nothing", async () => {
    const [p, other] = t.projects;
    const before = await count(t.db, 'sfu_event');
    const body = JSON.stringify(event('participant_joined', 'mallory'));
    expect((await post(p!.projectId, body)).status).toBe(401);
    expect((await post(p!.projectId, body, 'not-a-jwt')).status).toBe(401);
    expect((await post(p!.projectId, body, await signed(body, KEY, 'x'.repeat(40)))).status).toBe(401);
    expect((await post(p!.projectId, body, await signed(body, 'APIother', SECRET))).status).toBe(401);
    // Signed for one body, sent with another.
    const changed = JSON.stringify(event('participant_joined', 'eve'));
    expect((await post(p!.projectId, changed, await signed(body))).status).toBe(401);
    // A post captured and sent again later: its token expired.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 10 * 60_000 });
    const old = await signed(body);
    vi.useRealTimers();
    const replayed = await post(p!.projectId, body, old);
    expect(replayed.status).toBe(401);
    expect(replayed.body.message).toContain("project's LiveKit key");
    // The other project has no LiveKit key: nothing is signed for it, not even with ours.
    expect((await post(other!.projectId, body, await signed(body))).status).toBe(401);
    expect((await post('not-a-project', body, await signed(body))).status).toBe(400);
    const huge = JSON.stringify({ ...event('participant_joined', 'big'), padding: 'x'.repeat(70_000) });
    expect((await post(p!.projectId, huge, await signed(huge))).status).toBe(413);
    for (const bad of [
      'not json',
      JSON.stringify({ event: 'participant_joined' }),
      JSON.stringify({ ...event('x', 'y'), createdAt: 'now' }),
    ])
      expect((await post(p!.projectId, bad, await signed(bad))).status).toBe(400);
    const future = JSON.stringify({ ...event('participant_joined', 'later'), createdAt: String(Math.floor(Date.now() / 1000) + 3600) });
    expect((await post(p!.projectId, future, await signed(future))).status).toBe(400);
    expect(await count(t.db, 'sfu_event')).toBe(before);
  });

  it('takes the events a relay verified itself with an ingest-scoped key, and keeps each project to its own', async () => {
    const [a, b] = t.projects;
    const events = [event('participant_joined', 'carol'), event('participant_left', 'carol')];
    expect((await apiSend<SfuEventsAccepted>(t, 'POST', '/sfu/livekit/events', b!.apiKey, events)).body).toEqual({
      received: 2,
      stored: 2,
    });
    expect((await apiSend(t, 'POST', '/sfu/livekit/events', b!.apiKey, [{ event: 'x' }])).status).toBe(400);
    // Carol joined b's room of that name: a's call of it does not show her.
    const ours = await api<CallDetail>(t, `/calls/${ROOM}`, a!.apiKey);
    expect(ours.body.sfu?.members.map((m) => m.feed)).toEqual(['alice', 'bob']);
  });
});
