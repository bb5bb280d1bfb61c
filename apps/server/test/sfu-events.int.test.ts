import { readFileSync } from 'node:fs';
import { type CallDetail, type JanusEvent, SAMPLE_HEAD, type SfuEventsAccepted, streamFieldIndex } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiSend, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { SFU_EVENTS_PER_MINUTE } from '../src/sfu/plugin.js';
import { dropExpiredSfuEvents } from '../src/sfu/store.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(3);
});
afterAll(() => t.close());

const ROOM = '126893971856';
/** A real room of three through Janus (sfu/janus-events.fixture.json), moved to a minute ago. */
function recordedRoom(): JanusEvent[] {
  const events = JSON.parse(readFileSync(new URL('../src/sfu/janus-events.fixture.json', import.meta.url), 'utf8')) as JanusEvent[];
  const shift = (Date.now() - 60_000) * 1000 - events[0]!.timestamp;
  return events.map((e) => ({ ...e, timestamp: e.timestamp + shift }));
}

const basic = (key: string) => `Basic ${Buffer.from(`rtcscope:${key}`).toString('base64')}`;
async function post(body: unknown, authorization: string): Promise<{ status: number; body: SfuEventsAccepted & { message?: string } }> {
  const res = await fetch(`${t.url}/api/v1/sfu/janus/events`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as SfuEventsAccepted & { message?: string } };
}

/** A participant's SDK: its published tracks named by Janus feed `feed`, and one received copy of `from`'s video. */
async function monitored(projectIndex: number, callId: string, participant: string, feed: number, from: number) {
  const socket = await ingestSocket(t.url, handshake(t.projects[projectIndex]!, callId, participant));
  const row = (stream: number, k: number) => {
    const r: (number | null)[] = [stream, k, k * 1000];
    r[SAMPLE_HEAD.length + streamFieldIndex('kbps')] = 500;
    return r;
  };
  const ack = await send(socket, {
    n: 0,
    t0: Date.now() - 30_000,
    conns: [
      { i: 0, key: 'publish' },
      { i: 1, key: 'subscribe' },
    ],
    streams: [
      { i: 0, conn: 0, direction: 'out', kind: 'audio', ssrc: 10 + feed, trackId: `janus:${ROOM}:${feed}:0` },
      { i: 1, conn: 0, direction: 'out', kind: 'video', ssrc: 20 + feed, trackId: `janus:${ROOM}:${feed}:1` },
      { i: 2, conn: 1, direction: 'in', kind: 'video', ssrc: 30 + feed, trackId: `janus:${ROOM}:${from}:1` },
    ],
    s: [0, 1, 2].flatMap((i) => [0, 1, 2].map((k) => row(i, k))),
    c: [],
    e: [],
  });
  expect(ack).toMatchObject({ ok: true });
  socket.disconnect();
}

describe("Janus's own view of a room, through its sample event handler", () => {
  it('keeps a room posted with an ingest-scoped API key as basic auth, once however often Janus retransmits, and shows the member whose SDK never reported', async () => {
    const p = t.projects[0]!;
    await monitored(0, 'sfu-room', 'p0', 1, 2);
    await monitored(0, 'sfu-room', 'p1', 2, 1);
    const events = recordedRoom();

    const first = await post(events, basic(p.apiKey));
    expect(first).toMatchObject({ status: 200, body: { received: events.length, stored: 32 } });
    // Janus retransmits a POST it had no answer to: the same events again are acknowledged, not stored twice.
    expect((await post(events, basic(p.apiKey))).body).toEqual({ received: events.length, stored: 0 });
    expect((await post(events[5], basic(p.apiKey))).body).toEqual({ received: 1, stored: 0 });

    const { body } = await api<CallDetail>(t, '/calls/sfu-room', p.apiKey);
    expect(body.sfu?.members.map((m) => [m.feed, m.display, m.participantId, m.subscribedTo])).toEqual([
      ['1', 'p0', 'p0', ['2', '3']],
      ['2', 'p1', 'p1', ['1', '3']],
      // p2 was in the room (Janus forwarded its media to both others) but its SDK sent nothing.
      ['3', 'p2', null, ['1', '2']],
    ]);
    expect(
      body.sfu?.members.every((m) => m.connections.length === 2 && m.connections.every((c) => c.upAt !== null && c.downAt !== null)),
    ).toBe(true);
  });

  it("refuses what is not Janus's events, a publishable key, a key without the ingest scope and no key, and stores nothing of it", async () => {
    const p = t.projects[0]!;
    const before = await count(t.db, 'sfu_event');
    const event = {
      type: 64,
      timestamp: Date.now() * 1000,
      session_id: 1,
      handle_id: 2,
      event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', room: 5, id: 1 } },
    };
    for (const bad of [
      {},
      [{ ...event, timestamp: 'now' }],
      [{ ...event, event: 'joined' }],
      [{ ...event, type: 0 }],
      Array.from({ length: 1001 }, () => event),
      'text',
    ]) {
      const refused = await post(bad, basic(p.apiKey));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/body/);
    }
    expect((await post([event], basic(p.ingestKey))).status).toBe(401);
    expect((await post([event], 'Basic ' + Buffer.from('rtcscope').toString('base64'))).status).toBe(401);
    const reader = await apiSend<{ apiKey: string }>(t, 'POST', '/project/keys', p.apiKey, { name: 'sfu-reader', scopes: ['read'] });
    const readOnly = await post([event], basic(reader.body.apiKey));
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.message).toContain('"ingest" scope');
    expect(await count(t.db, 'sfu_event')).toBe(before);
    // The same event with a Bearer key goes in like any API call.
    expect((await apiSend<SfuEventsAccepted>(t, 'POST', '/sfu/janus/events', p.apiKey, [event])).body).toEqual({ received: 1, stored: 1 });
  });

  it("keeps each project's rooms apart: another project's events for the same room number join only its own calls", async () => {
    const [a, b] = t.projects;
    await monitored(1, 'sfu-room-b', 'q0', 1, 2);
    const stranger = recordedRoom().map(
      (e) => JSON.parse(JSON.stringify(e).replaceAll('"display":"p', '"display":"mallory')) as JanusEvent,
    );
    expect((await post(stranger, basic(b!.apiKey))).body.stored).toBe(32);
    const ours = await api<CallDetail>(t, '/calls/sfu-room', a!.apiKey);
    expect(ours.body.sfu?.members.map((m) => m.display)).toEqual(['p0', 'p1', 'p2']);
    const theirs = await api<CallDetail>(t, '/calls/sfu-room-b', b!.apiKey);
    expect(theirs.body.sfu?.members.map((m) => [m.display, m.participantId])).toEqual([
      ['mallory0', 'q0'],
      ['mallory1', null],
      ['mallory2', null],
    ]);
  });

  it('has no SFU view for a call whose streams name no SFU room', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'peer-to-peer', 'alice'));
    expect(await send(socket, { n: 0, t0: Date.now(), conns: [{ i: 0, key: 'pc1' }], c: [[0, 0, 0, 1]] })).toMatchObject({ ok: true });
    socket.disconnect();
    expect((await api<CallDetail>(t, '/calls/peer-to-peer', p.apiKey)).body.sfu).toBeNull();
  });

  it("refuses events dated outside the server's clock window, and a timestamp past any date, storing nothing of their post", async () => {
    const p = t.projects[2]!;
    const joined = (timestamp: number, id: number) => ({
      type: 64,
      timestamp,
      session_id: 1,
      handle_id: id,
      event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', room: 'window', id } },
    });
    const nowUs = Date.now() * 1000;
    for (const [timestamp, status] of [
      [Date.UTC(2001, 0, 1) * 1000, 400],
      [Date.UTC(2255, 0, 1) * 1000, 400],
      [nowUs + 11 * 60e6, 400],
      // 2^63 microseconds: no date PostgreSQL keeps.
      [2 ** 63, 400],
    ] as const) {
      const answer = await post([joined(nowUs, 1), joined(timestamp, 2)], basic(p.apiKey));
      expect(answer.status, String(timestamp)).toBe(status);
      expect(answer.body.message).toMatch(/body\/1\/timestamp (is outside the accepted window|must be <=)/);
    }
    const { rows } = await t.db.pool.query('SELECT 1 FROM sfu_event WHERE project_id = $1', [p.projectId]);
    expect(rows).toEqual([]);
  });

  it(`takes at most ${SFU_EVENTS_PER_MINUTE} events a minute from a project, refusing the rest whole, and keeps them as long as its samples`, async () => {
    const p = t.projects[2]!;
    const nowUs = Date.now() * 1000;
    const group = (k: number) =>
      Array.from({ length: 1000 }, (_, j) => ({
        type: 64,
        timestamp: nowUs - (k * 1000 + j),
        session_id: 7,
        handle_id: k * 1000 + j + 1,
        event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', room: 'flood', id: k * 1000 + j + 1 } },
      }));
    for (let k = 0; k < SFU_EVENTS_PER_MINUTE / 1000; k++) expect((await post(group(k), basic(p.apiKey))).status).toBe(200);
    const refused = await post(group(99), basic(p.apiKey));
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(
      /^the project posted more than 6000 SFU events in the last minute: nothing of this post was stored/,
    );
    const stored = async () =>
      (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sfu_event WHERE project_id = $1', [p.projectId])).rows[0]!.n;
    expect(await stored()).toBe(SFU_EVENTS_PER_MINUTE);
    // Another project is counted on its own.
    expect((await post(group(98), basic(t.projects[1]!.apiKey))).status).toBe(200);

    // Retention: the project keeps 30 days; an event of 31 days ago goes, the rest stay.
    await t.db.pool.query(
      `INSERT INTO sfu_event (project_id, sfu, room, session, handle, at, kind, feed, detail)
       VALUES ($1, 'janus', 'flood', '7', 'old', now() - interval '31 days', 'joined', '1', '{}')`,
      [p.projectId],
    );
    expect(await dropExpiredSfuEvents(t.db.pool)).toBe(1);
    expect(await stored()).toBe(SFU_EVENTS_PER_MINUTE);
  });
});
