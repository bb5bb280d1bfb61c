import { mean } from '@rtcscope/metrics';
import { type CallDetail, type CallDiagnosis, SAMPLE_HEAD, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_ROUND, summarizeDue } from '../src/insights/summaries.js';
import { api, eventually, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** A wire row of a stream with the given fields; the rest unmeasured. */
function row(index: number, seq: number, dtMs: number, values: Partial<Record<StreamFieldName, number>>): (number | null)[] {
  const out: (number | null)[] = [index, seq, dtMs];
  for (const [name, v] of Object.entries(values)) {
    const at = SAMPLE_HEAD.length + streamFieldIndex(name as StreamFieldName);
    while (out.length <= at) out.push(null);
    out[at] = v ?? null;
  }
  return out;
}

interface SummaryRow {
  participant: string;
  seconds: number;
  score: number | null;
  rtt_ms: number;
  loss_pct: number;
  jitter_ms: number;
  sent_kbps: number;
  received_kbps: number;
  fps: number;
  height: number;
  setup_ms: number;
  setup_failed: boolean;
  local_candidate_type: string;
  local_protocol: string;
  issues: string[];
  ended_at: Date | null;
  verdict: string;
}

const summaries = async (callId: string) =>
  (
    await t.db.pool.query<SummaryRow>(
      `SELECT p.external_id AS participant, s.* FROM participant_summary s JOIN participant p ON p.id = s.participant_id JOIN call c ON c.id = s.call_id
       WHERE c.external_id = $1 ORDER BY p.external_id`,
      [callId],
    )
  ).rows;

describe("participants' summaries", () => {
  it("write each participant's call in a row, as the samples, scores and events say, once its call has ended", async () => {
    const p = t.projects[0]!;
    // Its 30 s of samples end a second ago: the call ends (at its last sample) too recently for the
    // server's own round to take it (10 s after the end) before this test's round below.
    const t0 = Date.now() - 31_000;
    // alice sends video (varying rate and RTT) and receives audio losing ~2 %; bob the other way round.
    const aliceKbps = Array.from({ length: 30 }, (_, k) => 900 + (k % 5) * 40);
    const aliceRtt = Array.from({ length: 30 }, (_, k) => 40 + (k % 3) * 6);
    const bobKbps = Array.from({ length: 30 }, (_, k) => 30 + (k % 2));
    const bobLoss = Array.from({ length: 30 }, (_, k) => (k % 4 === 0 ? 4 : 1));
    const alice = await ingestSocket(t.url, handshake(p, 'sum-ended', 'alice'));
    const bob = await ingestSocket(t.url, handshake(p, 'sum-ended', 'bob'));
    const conns = (local: string) => [{ i: 0, key: 'pc1', localCandidateType: local, localProtocol: 'udp' }];
    // Each page also opens a data channel alone (an analytics service's probe), connected before the call's.
    const probe = { i: 1, key: 'probe', localCandidateType: 'srflx', localProtocol: 'udp' };
    const probed: [number, number, number, string, string][] = [
      [10, -2000, 1, 'connection-added', 'probe'],
      [11, -1900, 1, 'media-negotiated', 'application'],
      [12, -1500, 1, 'connection-state', 'connected'],
    ];
    expect(
      await send(alice, {
        n: 0,
        t0,
        conns: [...conns('srflx'), probe] as never,
        streams: [
          { i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 1 },
          { i: 1, conn: 0, direction: 'in', kind: 'video', ssrc: 2 },
        ],
        s: aliceKbps.flatMap((kbps, k) => [
          row(0, k, k * 1000, { kbps, rttMs: aliceRtt[k]! }),
          row(1, k, k * 1000, { kbps: 500, fps: 24 + (k % 2) * 6, height: 360, lossPct: bobLoss[k]! }),
        ]),
        e: [
          [0, -800, 0, 'connection-added', 'pc1'],
          [2, -600, 0, 'media-negotiated', 'audio recvonly, video sendrecv'],
          [1, 700, 0, 'connection-state', 'connected'],
          ...probed,
        ],
      }),
    ).toMatchObject({ ok: true });
    expect(
      await send(bob, {
        n: 0,
        t0,
        conns: conns('relay') as never,
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'audio', ssrc: 3 }],
        s: bobKbps.map((kbps, k) => row(0, k, k * 1000, { kbps })),
      }),
    ).toMatchObject({ ok: true });
    // zed joins and leaves without connecting or any media (its probe connected, which is not the call): a set-up that failed.
    const zed = await ingestSocket(t.url, handshake(p, 'sum-ended', 'zed'));
    expect(
      await send(zed, {
        n: 0,
        t0,
        conns: [{ ...probe, i: 0 }] as never,
        streams: [],
        s: [],
        e: probed.map((e) => [e[0], e[1], 0, e[3], e[4]]) as never,
      }),
    ).toMatchObject({
      ok: true,
    });
    for (const s of [alice, bob, zed]) expect(await send(s, { n: 1, t0: Date.now(), bye: true })).toMatchObject({ ok: true });
    await expect
      .poll(async () => (await api<CallDetail>(t, '/calls/sum-ended', p.apiKey)).body.call.state, { timeout: 15_000 })
      .toBe('ended');

    // Not before the diagnosis has had its time after the end (a live summary may be there already; the
    // server's own rounds run too, so should one take the ended call first, this round finds nothing due).
    const ended = async () => (await summaries('sum-ended')).filter((r) => r.ended_at !== null);
    expect(await ended()).toEqual([]);
    const later = Date.now() + 60_000;
    const taken = await summarizeDue(t.db, PER_ROUND, later);
    if (!taken.some((c) => c.callId === 'sum-ended')) await expect.poll(async () => (await ended()).length, { timeout: 15_000 }).toBe(3);
    const detail = (await api<CallDetail>(t, '/calls/sum-ended', p.apiKey)).body;
    const diagnosis = (await api<CallDiagnosis>(t, '/calls/sum-ended/diagnosis', p.apiKey)).body;
    const [a, b, z] = await summaries('sum-ended');
    const who = (id: string) => detail.participants.find((x) => x.id === id)!;
    expect(a).toMatchObject({ participant: 'alice', local_candidate_type: 'srflx', local_protocol: 'udp', setup_ms: 1500, issues: [] });
    expect(a!.seconds).toBeCloseTo((who('alice').leftAt! - who('alice').joinedAt) / 1000, 2);
    expect(a!.sent_kbps).toBeCloseTo(mean(aliceKbps)!, 1);
    expect(a!.rtt_ms).toBeCloseTo(mean(aliceRtt)!, 1);
    expect(a!.received_kbps).toBeCloseTo(500, 3);
    expect(a!.loss_pct).toBeCloseTo(mean(bobLoss)!, 2);
    expect(a!.fps).toBeCloseTo(27, 3);
    expect(a!.height).toBeCloseTo(360, 3);
    const scores = diagnosis.scores.participants.alice!;
    expect(scores.length).toBeGreaterThan(0);
    expect(a!.score).toBeCloseTo(mean(scores.map((w) => w.mos))!, 3);
    // bob's connected state was not recorded, but he sent media: his set-up did not fail.
    expect(b).toMatchObject({
      participant: 'bob',
      local_candidate_type: 'relay',
      received_kbps: null,
      setup_ms: null,
      setup_failed: false,
    });
    expect(a).toMatchObject({ setup_failed: false });
    expect(z).toMatchObject({ participant: 'zed', setup_ms: null, setup_failed: true });
    expect(b!.sent_kbps).toBeCloseTo(mean(bobKbps)!, 2);
    expect(a!.ended_at).not.toBeNull();
    // The call's one verdict, as the calls list shows it, on each of its participants' rows.
    expect(detail.call.quality).not.toBe('unknown');
    expect([a, b, z].map((x) => x!.verdict)).toEqual([detail.call.quality, detail.call.quality, detail.call.quality]);

    // Written once: the next round leaves it.
    expect(await summarizeDue(t.db, PER_ROUND, later + 5_000)).not.toContainEqual({ projectId: p.projectId, callId: 'sum-ended' });
  });

  it("keep a live call's current, a minute at a time", async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'sum-live', 'carol'));
    const t0 = Date.now() - 5_000;
    expect(
      await send(socket, {
        n: 0,
        t0,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 9 }],
        s: [row(0, 0, 0, { kbps: 700 }), row(0, 1, 1000, { kbps: 900 })],
      }),
    ).toMatchObject({ ok: true });
    const now = Date.now();
    expect(await summarizeDue(t.db, PER_ROUND, now)).toContainEqual({ projectId: p.projectId, callId: 'sum-live' });
    expect((await summaries('sum-live'))[0]).toMatchObject({ participant: 'carol', ended_at: null, sent_kbps: 800 });
    expect(await summarizeDue(t.db, PER_ROUND, now + 30_000)).not.toContainEqual({ projectId: p.projectId, callId: 'sum-live' });
    expect(await send(socket, { n: 1, t0, s: [row(0, 2, 2000, { kbps: 1100 })] })).toMatchObject({ ok: true });
    expect(await summarizeDue(t.db, PER_ROUND, now + 61_000)).toContainEqual({ projectId: p.projectId, callId: 'sum-live' });
    expect((await summaries('sum-live'))[0]!.sent_kbps).toBeCloseTo(900, 3);
    socket.disconnect();
  });

  it('take the call whose summary is the oldest first, when more are due than a round takes', async () => {
    const p = t.projects[0]!;
    const calls = ['sum-turn-a', 'sum-turn-b', 'sum-turn-c'];
    for (const callId of calls) {
      const socket = await ingestSocket(t.url, handshake(p, callId, 'dana'));
      const batch = {
        n: 0,
        t0: Date.now() - 2000,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 5 }],
      };
      expect(await send(socket, { ...batch, s: [row(0, 0, 0, { kbps: 700 })] })).toMatchObject({ ok: true });
      socket.disconnect();
    }
    // The server's own round summarizes them first (never summarized: due at once); from then on only
    // this test's rounds, at a time 10 minutes ahead, find them due.
    const summarized = async () =>
      (await t.db.pool.query('SELECT count(*)::int AS n FROM call WHERE external_id = ANY($1) AND summarized_at IS NOT NULL', [calls]))
        .rows[0].n as number;
    await eventually(summarized, (n) => n === calls.length);
    const now = Date.now() + 600_000;
    // Summarized a minute apart, b first; their SDKs last heard from in another order.
    const at = (callId: string, summarizedAt: number, seenAt: number) =>
      t.db.pool.query(
        'UPDATE call SET summarized_at = to_timestamp($2 / 1000.0), last_seen_at = to_timestamp($3 / 1000.0) WHERE external_id = $1',
        [callId, summarizedAt, seenAt],
      );
    await at('sum-turn-b', now - 300_000, now - 1000);
    await at('sum-turn-c', now - 240_000, now - 3000);
    await at('sum-turn-a', now - 180_000, now - 2000);
    const turn = async () => (await summarizeDue(t.db, { ended: 0, live: 1 }, now)).map((c) => c.callId).filter((id) => calls.includes(id));
    const order = [...(await turn()), ...(await turn()), ...(await turn())];
    expect(order).toEqual(['sum-turn-b', 'sum-turn-c', 'sum-turn-a']);
  });
});

describe("live calls' summaries", () => {
  const folds = async (callId: string) =>
    (
      await t.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM stream_summary_fold f JOIN call c ON c.id = f.call_id WHERE c.external_id = $1',
        [callId],
      )
    ).rows[0]!.n;

  it('add only the samples since the last round; a sample older than those reaches the summary when the call ends', async () => {
    const p = t.projects[0]!;
    const socket = await ingestSocket(t.url, handshake(p, 'sum-fold', 'erin'));
    const t0 = Date.now() - 10_000;
    const streams = [{ i: 0, conn: 0, direction: 'out', kind: 'video', ssrc: 4 }] as never;
    expect(
      await send(socket, {
        n: 0,
        t0,
        conns: [{ i: 0, key: 'pc1' }],
        streams,
        s: [row(0, 0, 0, { kbps: 700 }), row(0, 2, 2000, { kbps: 900 })],
      }),
    ).toMatchObject({ ok: true });
    const now = Date.now();
    expect(await summarizeDue(t.db, PER_ROUND, now)).toContainEqual({ projectId: p.projectId, callId: 'sum-fold' });
    expect((await summaries('sum-fold'))[0]!.sent_kbps).toBeCloseTo(800, 3);
    expect(await folds('sum-fold')).toBe(1);
    // One sample newer than the fold, one (resent late) between the two it holds.
    expect(await send(socket, { n: 1, t0, s: [row(0, 3, 3000, { kbps: 1100 }), row(0, 1, 1000, { kbps: 2000 })] })).toMatchObject({
      ok: true,
    });
    expect(await summarizeDue(t.db, PER_ROUND, now + 61_000)).toContainEqual({ projectId: p.projectId, callId: 'sum-fold' });
    expect((await summaries('sum-fold'))[0]!.sent_kbps).toBeCloseTo(900, 3);

    expect(await send(socket, { n: 2, t0: Date.now(), bye: true })).toMatchObject({ ok: true });
    await expect
      .poll(async () => (await api<CallDetail>(t, '/calls/sum-fold', p.apiKey)).body.call.state, { timeout: 15_000 })
      .toBe('ended');
    expect(await summarizeDue(t.db, PER_ROUND, Date.now() + 60_000)).toContainEqual({ projectId: p.projectId, callId: 'sum-fold' });
    const [ended] = await summaries('sum-fold');
    expect(ended!.sent_kbps).toBeCloseTo((700 + 2000 + 900 + 1100) / 4, 3);
    expect(ended!.ended_at).not.toBeNull();
    expect(await folds('sum-fold')).toBe(0);
    socket.disconnect();
  });

  it('are shared by the nodes: two rounds at once never take the same call, live or ended', async () => {
    const p = t.projects[0]!;
    const live = Array.from({ length: 8 }, (_, k) => `sum-shared-${k}`);
    const ended = Array.from({ length: 4 }, (_, k) => `sum-shared-ended-${k}`);
    for (const callId of [...live, ...ended]) {
      const socket = await ingestSocket(t.url, handshake(p, callId, 'fay'));
      const batch = {
        n: 0,
        t0: Date.now() - 2000,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: 'out', kind: 'audio', ssrc: 6 }],
      };
      expect(await send(socket, { ...batch, s: [row(0, 0, 0, { kbps: 40 })] } as never)).toMatchObject({ ok: true });
      socket.disconnect();
    }
    // Due at a time 10 minutes ahead only (the server's own rounds, at the present, leave them).
    const now = Date.now() + 600_000;
    await t.db.pool.query(
      'UPDATE call SET summarized_at = to_timestamp($2 / 1000.0), last_seen_at = to_timestamp($3 / 1000.0) WHERE external_id = ANY ($1)',
      [live, now - 120_000, now - 1000],
    );
    await t.db.pool.query(
      'UPDATE call SET summarized_end = NULL, ended_at = to_timestamp($2 / 1000.0), last_seen_at = to_timestamp($2 / 1000.0) WHERE external_id = ANY ($1)',
      [ended, now - 60_000],
    );
    const calls = [...live, ...ended];
    const round = async () =>
      (await summarizeDue(t.db, { ended: ended.length, live: live.length }, now)).map((c) => c.callId).filter((id) => calls.includes(id));
    const [a, b] = await Promise.all([round(), round()]);
    expect([...a, ...b].sort()).toEqual([...calls].sort());
    expect(await round()).toEqual([]);
  });
});
