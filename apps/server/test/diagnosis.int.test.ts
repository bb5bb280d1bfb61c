import type { CallDetail, CallDiagnosis, CallIssue, CallList, IssueList, LiveDiagnosis } from '@rtcscope/protocol';
import { QUALITY_LIMITATIONS, SAMPLE_HEAD, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, count, dashboardSocket, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(async () => t.close());

const at = (name: StreamFieldName) => SAMPLE_HEAD.length + streamFieldIndex(name);

/** One participant's 30 s of one video stream (ssrc 100) from second `first`, each second's loss from `lossPct(k)`; `n`: the batch's number. */
function batch(t0: number, direction: 'in' | 'out', lossPct: (k: number) => number, { n = 0, first = 0 } = {}) {
  const rows = [...Array(30).keys()].map((j) => {
    const k = first + j;
    const row: (number | null)[] = [0, k, k * 1000];
    row[at('kbps')] = 900;
    row[at('fps')] = 30;
    row[at('width')] = 640;
    row[at('height')] = 360;
    row[at('lossPct')] = direction === 'in' ? lossPct(k) : null;
    return row;
  });
  return { n, t0, conns: [{ i: 0, key: 'pc1' }], streams: [{ i: 0, conn: 0, direction, kind: 'video', ssrc: 100 }], s: rows, c: [], e: [] };
}

describe('the live diagnosis', () => {
  it('stores an issue once, on the right participant with its times, pushes it live, and finds it again from the samples', async () => {
    const p = t.projects[0]!;
    // At a window's start, so that the seconds before the loss fill a window of their own (a stream's first sample is not scored).
    const t0 = Math.floor((Date.now() - 40_000) / 5000) * 5000;
    const dashboard = await dashboardSocket(t, p.apiKey, { callId: 'lossy' });
    const pushed: LiveDiagnosis[] = [];
    dashboard.on('diagnosis', (d: LiveDiagnosis) => pushed.push(d));

    const alice = await ingestSocket(t.url, handshake(p, 'lossy', 'alice'));
    expect(
      await send(
        alice,
        batch(t0, 'out', () => 0),
      ),
    ).toMatchObject({ ok: true });
    const bob = await ingestSocket(t.url, handshake(p, 'lossy', 'bob'));
    // bob loses 12 % of the video from second 5 to 14.
    const lossy = batch(t0, 'in', (k) => (k >= 5 && k < 15 ? 12 : 0));
    expect(await send(bob, lossy)).toMatchObject({ ok: true });
    // Sent again (a lost ack): nothing is judged or stored twice.
    expect(await send(bob, lossy)).toMatchObject({ ok: true });

    await expect
      .poll(() => pushed.flatMap((d) => d.issues).filter((i) => i.type === 'downlink-loss' && i.end !== null).length, { timeout: 5000 })
      .toBe(1);
    const live = pushed.flatMap((d) => d.issues).find((i) => i.type === 'downlink-loss' && i.end !== null)!;
    expect(live).toMatchObject({
      participantId: 'bob',
      direction: 'in',
      severity: 'critical',
      start: t0 + 5000,
      end: t0 + 15_000,
      evidence: { lossPct: 12 },
    });
    expect(pushed.flatMap((d) => d.scores).some((s) => s.participantId === 'bob' && s.kind === 'video')).toBe(true);

    // Window scores are stored once a second, all calls' together.
    const diagnosis = async () => (await api<CallDiagnosis>(t, '/calls/lossy/diagnosis', p.apiKey)).body;
    await expect.poll(async () => (await diagnosis()).scores.participants.bob?.length ?? 0, { timeout: 5000 }).toBeGreaterThanOrEqual(5);
    const stored = await diagnosis();
    const summary = (d: CallDiagnosis) => d.issues.map((i) => [i.type, i.participantId, i.start, i.end, i.severity]);
    expect(summary(stored)).toEqual([['downlink-loss', 'bob', t0 + 5000, t0 + 15_000, 'critical']]);
    expect(await count(t.db, 'call_issue')).toBe(1);
    // Scores follow the loss: bob's windows during it are worse than before it.
    const bobScores = stored.scores.participants.bob!;
    const before = bobScores.find((w) => w.ts + 5000 <= t0 + 5000)!.mos;
    const during = bobScores.find((w) => w.ts >= t0 + 5000 && w.ts + 5000 <= t0 + 15_000)!.mos;
    expect(during).toBeLessThan(before);
    // Each received stream's own windows and weights: bob's participant score is what he heard and saw,
    // his audio's and his video's weighted means combined.
    const bobStreams = stored.scores.streams.filter((s) => s.participantId === 'bob');
    expect(bobStreams.length).toBeGreaterThan(0);
    for (const w of bobScores) {
      const of = (kind: 'audio' | 'video') => {
        const xs = bobStreams.filter((s) => s.kind === kind).flatMap((s) => s.windows.filter((x) => x.ts === w.ts));
        const weights = xs.reduce((a, x) => a + x.weight, 0);
        return weights ? xs.reduce((a, x) => a + x.mos * x.weight, 0) / weights : null;
      };
      const [heard, seen] = [of('audio'), of('video')];
      expect(w.mos).toBeCloseTo(heard !== null && seen !== null ? Math.min(5, 1.15 + 0.17 * heard * seen) : (heard ?? seen)!, 9);
    }

    const again = (await api<CallDiagnosis>(t, '/calls/lossy/diagnosis?source=samples', p.apiKey)).body;
    expect(summary(again)).toEqual(summary(stored));

    // The calls list gives the call's score and issues, and finds calls by issue type.
    const answer = await api<CallList>(t, '/calls?issue=downlink-loss', p.apiKey);
    const row = answer.body.calls;
    expect(row.map((c) => [c.id, c.issues])).toEqual([['lossy', [{ type: 'downlink-loss', severity: 'critical', count: 1 }]]]);
    expect(row[0]!.score).toBeCloseTo(stored.scores.summary.mean!, 6);
    // One verdict, from what was found: a critical issue makes the call poor.
    expect(row[0]!.quality).toBe('poor');
    expect((await api<CallList>(t, '/calls?issue=video-freeze', p.apiKey)).body.calls).toEqual([]);
    // The call's own page says the same.
    expect((await api<CallDetail>(t, '/calls/lossy', p.apiKey)).body.call).toMatchObject({ score: row[0]!.score, issues: row[0]!.issues });

    const listed = (await api<IssueList>(t, `/issues?type=downlink-loss&from=${t0}`, p.apiKey)).body.issues;
    expect(listed.map((i) => [i.callId, i.participantId])).toEqual([['lossy', 'bob']]);
    for (const s of [alice, bob, dashboard]) s.disconnect();
  });

  it("stores a receiver's loss as following from its sender's congested uplink, pushed and found again from the samples with the same link", async () => {
    const p = t.projects[0]!;
    const t0 = Date.now() - 40_000;
    const dashboard = await dashboardSocket(t, p.apiKey, { callId: 'capped' });
    const pushed: LiveDiagnosis[] = [];
    dashboard.on('diagnosis', (d: LiveDiagnosis) => pushed.push(d));
    // alice's uplink is capped at second 18: she sends 300 of her 1500 kbit/s, and her browser says bandwidth from 22.
    const capped = batch(t0, 'out', () => 0);
    for (const row of capped.s) {
      const k = row[1] as number;
      row[at('kbps')] = k < 18 ? 1500 : 300;
      row[at('qualityLimitation')] = k < 22 ? 0 : QUALITY_LIMITATIONS.indexOf('bandwidth');
    }
    const alice = await ingestSocket(t.url, handshake(p, 'capped', 'alice'));
    expect(await send(alice, capped)).toMatchObject({ ok: true });
    const bob = await ingestSocket(t.url, handshake(p, 'capped', 'bob'));
    expect(
      await send(
        bob,
        batch(t0, 'in', (k) => (k >= 18 ? 20 : 0)),
      ),
    ).toMatchObject({ ok: true });

    // bob's issues (his loss, and its runs) each with whether it follows from alice's congestion.
    const linked = (issues: CallIssue[]) => {
      const cause = issues.find((i) => i.type === 'uplink-congestion');
      const bobs = issues.filter((i) => i.participantId === 'bob');
      return [bobs.some((i) => i.type === 'downlink-loss'), bobs.every((i) => i.causeId !== null && i.causeId === cause?.id)];
    };
    await expect
      .poll(async () => linked((await api<CallDiagnosis>(t, '/calls/capped/diagnosis', p.apiKey)).body.issues), { timeout: 5000 })
      .toEqual([true, true]);
    const stored = (await api<CallDiagnosis>(t, '/calls/capped/diagnosis', p.apiKey)).body.issues;
    expect(stored.find((i) => i.type === 'downlink-loss')!.check).toMatch(/^It follows from alice's uplink-congestion/);
    await expect
      .poll(() => linked([...new Map(pushed.flatMap((d) => d.issues).map((i) => [i.id, i])).values()]), { timeout: 5000 })
      .toEqual([true, true]);
    expect(linked((await api<CallDiagnosis>(t, '/calls/capped/diagnosis?source=samples', p.apiKey)).body.issues)).toEqual([true, true]);
    for (const s of [alice, bob, dashboard]) s.disconnect();
  });

  it("keeps projects apart: another project's key sees neither the call's diagnosis nor its issues", async () => {
    const other = t.projects[1]!;
    expect((await api(t, '/calls/lossy/diagnosis', other.apiKey)).status).toBe(404);
    expect((await api<IssueList>(t, '/issues', other.apiKey)).body.issues).toEqual([]);
    expect((await api(t, '/issues?type=Not_A_Type', other.apiKey)).status).toBe(400);
  });

  it("ends a call's open issues with its last sample when the call ends", async () => {
    const quick = await startTestServer(1, { callIdleTimeoutS: 2 });
    try {
      const p = quick.projects[0]!;
      const t0 = Date.now() - 31_000;
      const bob = await ingestSocket(quick.url, handshake(p, 'ends-lossy', 'bob'));
      // Lossy from second 20 to its last sample (second 29).
      expect(
        await send(
          bob,
          batch(t0, 'in', (k) => (k >= 20 ? 12 : 0)),
        ),
      ).toMatchObject({ ok: true });
      bob.disconnect();
      const carol = await ingestSocket(quick.url, handshake(p, 'ends-clean', 'carol'));
      expect(
        await send(
          carol,
          batch(t0, 'in', () => 0),
        ),
      ).toMatchObject({ ok: true });
      carol.disconnect();
      await expect
        .poll(
          async () =>
            (await api<CallDiagnosis>(quick, '/calls/ends-lossy/diagnosis', p.apiKey)).body.issues.map((i) => [i.type, i.start, i.end]),
          { timeout: 15_000 },
        )
        .toEqual([['downlink-loss', t0 + 20_000, t0 + 29_000]]);

      // Ended, each call's score is written on it: the calls list sorts and filters ended calls by it.
      const stored = async () =>
        (
          await quick.db.pool.query<{ external_id: string; score: number | null }>(
            'SELECT external_id, score FROM call ORDER BY external_id',
          )
        ).rows;
      await expect.poll(async () => (await stored()).every((c) => c.score !== null), { timeout: 15_000 }).toBe(true);
      const [clean, lossy] = (await stored()).map((c) => c.score!);
      const list = (await api<CallList>(quick, '/calls', p.apiKey)).body.calls;
      expect(lossy).toBeCloseTo(list.find((c) => c.id === 'ends-lossy')!.score!, 5);
      expect(list.map((c) => [c.id, c.quality]).sort()).toEqual([
        ['ends-clean', 'good'],
        ['ends-lossy', 'poor'],
      ]);
      expect(lossy).toBeLessThan(clean!);
      const ids = async (query: string) => (await api<CallList>(quick, `/calls?${query}`, p.apiKey)).body.calls.map((c) => c.id);
      expect(await ids('sort=score')).toEqual(['ends-lossy', 'ends-clean']);
      expect(await ids(`maxScore=${((lossy! + clean!) / 2).toFixed(3)}`)).toEqual(['ends-lossy']);
      expect((await api(quick, '/calls?maxScore=6', p.apiKey)).status).toBe(400);
    } finally {
      await quick.close();
    }
  });

  it("judges one-way media when the call's two ends reach different server nodes", async () => {
    const cluster = await startTestServer(1);
    try {
      const p = cluster.projects[0]!;
      const other = await cluster.addNode();
      // alice's batches go to the first node, bob's to the other; each second, alice sends and bob, after 3 s, gets nothing.
      const alice = await ingestSocket(cluster.url, handshake(p, 'split', 'alice'));
      const bob = await ingestSocket(other, handshake(p, 'split', 'bob'));
      const second = (n: number, direction: 'in' | 'out', kbps: number) => {
        const row: (number | null)[] = [0, n, 0];
        row[at('kbps')] = kbps;
        row[at('fps')] = kbps ? 30 : 0;
        return {
          n,
          t0: Date.now(),
          conns: [{ i: 0, key: 'pc1' }],
          streams: [{ i: 0, conn: 0, direction, kind: 'video', ssrc: 100 }],
          s: [row],
          c: [],
          e: [],
        };
      };
      const oneWay = async () =>
        (
          await cluster.db.pool.query<{ participant: string; evidence: { sender: string } }>(
            `SELECT participant, evidence FROM call_issue WHERE type = 'one-way-media'`,
          )
        ).rows;
      for (let n = 0; n < 30 && !(await oneWay()).length; n++) {
        expect(await send(alice, second(n, 'out', 1200))).toMatchObject({ ok: true });
        expect(await send(bob, second(n, 'in', n < 3 ? 1200 : 0))).toMatchObject({ ok: true });
        await new Promise((r) => setTimeout(r, 1000));
      }
      // Raised once, on bob, by the node that takes his batches (the other reads him but raises nothing on him).
      expect(await oneWay()).toEqual([
        { participant: 'bob', evidence: expect.objectContaining({ sender: 'alice', sentKbps: 1200, receivedKbps: 0 }) },
      ]);
      for (const s of [alice, bob]) s.disconnect();
    } finally {
      await cluster.close();
    }
  });

  it('starts a diagnosis thread that died again: it continues the issues left open, and a call that ends closes those it could not', async () => {
    // The samples are a minute old: a short idle timeout would end the calls while the thread restarts
    // (seconds on a loaded machine), before their next batches. Here a call ends when its participant says goodbye.
    const quick = await startTestServer(1, { callIdleTimeoutS: 600 });
    try {
      const p = quick.projects[0]!;
      const t0 = Date.now() - 61_000;
      const issues = async (callId: string) =>
        (await api<CallDiagnosis>(quick, `/calls/${callId}/diagnosis`, p.apiKey)).body.issues.map((i) => [i.type, i.start, i.end]);
      // Both lose video from second 20 to the end of their first batch: an issue open on each.
      const bob = await ingestSocket(quick.url, handshake(p, 'crash-goes-on', 'bob'));
      const carol = await ingestSocket(quick.url, handshake(p, 'crash-clears', 'carol'));
      for (const s of [bob, carol])
        expect(
          await send(
            s,
            batch(t0, 'in', (k) => (k >= 20 ? 12 : 0)),
          ),
        ).toMatchObject({ ok: true });
      for (const callId of ['crash-goes-on', 'crash-clears'])
        await expect.poll(() => issues(callId), { timeout: 5000 }).toEqual([['downlink-loss', t0 + 20_000, null]]);

      const thread = quick.server.app.diagnosis!;
      const died = thread['worker'];
      await died.terminate();
      await expect.poll(() => thread['worker'] !== died).toBe(true);

      // bob's loss goes on until second 50 (raised again by the new thread: the same issue); carol's has cleared.
      expect(
        await send(
          bob,
          batch(t0, 'in', (k) => (k < 50 ? 12 : 0), { n: 1, first: 30 }),
        ),
      ).toMatchObject({ ok: true });
      expect(
        await send(
          carol,
          batch(t0, 'in', () => 0, { n: 1, first: 30 }),
        ),
      ).toMatchObject({ ok: true });
      await expect.poll(() => issues('crash-goes-on'), { timeout: 5000 }).toEqual([['downlink-loss', t0 + 20_000, t0 + 50_000]]);

      expect(await send(carol, { n: 2, t0: Date.now(), bye: true })).toMatchObject({ ok: true });
      bob.disconnect();
      carol.disconnect();
      const ended = async () =>
        (await quick.db.pool.query<{ ended_at: Date | null }>(`SELECT ended_at FROM call WHERE external_id = 'crash-clears'`)).rows[0]!
          .ended_at;
      await expect.poll(ended, { timeout: 15_000 }).not.toBeNull();
      await expect
        .poll(() => issues('crash-clears'), { timeout: 5000 })
        .toEqual([['downlink-loss', t0 + 20_000, (await ended())!.getTime()]]);
    } finally {
      await quick.close();
    }
  });
});
