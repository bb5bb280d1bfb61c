import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertNotification, AlertRule, AlertRuleInput, DeliveryLog, NotificationList, WebhookEndpoint } from '@rtcscope/protocol';
import { experienced, type ScorePoint } from '@rtcscope/diagnosis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  api,
  apiSend,
  count,
  dashboardSocket,
  freshDatabase,
  handshake,
  ingestSocket,
  runAdmin,
  send,
  startTestServer,
  type TestServer,
} from './harness.js';
import { callJudgements, insertScores, liveScores, storeCallScore } from '../src/diagnosis/store.js';
import { freePort } from './ports.js';
import { startServerProcess } from './server-process.js';
import { verifyDelivery, WebhookReceiver } from './webhook-receiver.js';

let t: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestServer(2, { callIdleTimeoutS: 600 });
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

const key = (k = 0) => t.projects[k]!.apiKey;
/** A rule, resolving as soon as its condition clears unless it says otherwise (alert-hysteresis.int.test.ts times that). */
const rule = async (input: AlertRuleInput, k = 0) => {
  const res = await apiSend<AlertRule>(t, 'POST', '/alerts/rules', key(k), { resolveAfterS: 0, ...input });
  expect(res.status).toBe(201);
  return res.body;
};
const endpoint = async (url: string, k = 0, format: 'json' | 'slack' = 'json') => {
  const res = await apiSend<WebhookEndpoint>(t, 'POST', '/alerts/endpoints', key(k), { url, format, enabled: true });
  expect(res.status).toBe(201);
  return res.body;
};
const notifications = async (k = 0) => (await api<NotificationList>(t, '/alerts/notifications', key(k))).body.notifications;
const payloads = () => receiver.accepted.map((r) => JSON.parse(r.body) as AlertNotification);
const ofRule = (ruleId: string) => payloads().filter((n) => n.rule.id === ruleId);

/** A live call whose participants each sent one batch (no connection state: they have not connected). */
async function liveCall(callId: string, participants: string[], k = 0): Promise<string> {
  for (const p of participants) {
    const socket = await ingestSocket(t.url, handshake(t.projects[k]!, callId, p));
    expect(await send(socket, { n: 0, t0: Date.now(), conns: [], streams: [], s: [], e: [] })).toMatchObject({ ok: true });
    socket.disconnect();
  }
  const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM call WHERE external_id = $1', [callId]);
  return rows[0]!.id;
}

/** Streams `participant` of a live call declares it receives (one connection): their ids. */
async function receivedStreams(callId: string, participant: string, kinds: ('audio' | 'video')[]): Promise<number[]> {
  const socket = await ingestSocket(t.url, handshake(t.projects[0]!, callId, participant));
  const conns = [{ i: 0, key: 'pc1', localCandidateType: 'host', localProtocol: 'udp' }] as never;
  const streams = kinds.map((kind, i) => ({ i, conn: 0, direction: 'in', kind, ssrc: 7 + i }));
  expect(await send(socket, { n: 0, t0: Date.now(), conns, streams, s: [], e: [] })).toMatchObject({ ok: true });
  socket.disconnect();
  const { rows } = await t.db.pool.query<{ id: string }>(
    `SELECT st.id FROM stream st JOIN connection cn ON cn.id = st.connection_id JOIN participant p ON p.id = cn.participant_id JOIN call c ON c.id = p.call_id
     WHERE p.external_id = $2 AND c.external_id = $1 ORDER BY st.ssrc`,
    [callId, participant],
  );
  return rows.map((r) => Number(r.id));
}

/** A received stream's window score as the diagnosis stores it. */
const point = (streamId: number, participant: string, kind: 'audio' | 'video', ts: number, mos: number): ScorePoint => ({
  ts,
  streamId,
  participant,
  kind,
  mos,
  lowers: {},
  weight: 1,
});

const insertIssue = async (callDbId: string, participant: string, type: string, k = 0, streamId: number | null = null) =>
  (
    await t.db.pool.query<{ id: string }>(
      `INSERT INTO call_issue (project_id, call_id, participant, stream_id, type, category, severity, started_at, cause, evidence, check_hint)
       VALUES ($1, $2, $3, $5, $4, 'network', 'warning', now(), 'loss on the way in', '{}', 'the network') RETURNING id`,
      [t.projects[k]!.projectId, callDbId, participant, type, streamId],
    )
  ).rows[0]!.id;

describe('alert rules', () => {
  it(
    'fire once for a condition, resolve when it clears, reach the dashboard live and a receiver that verifies the signature',
    { timeout: 60_000 },
    async () => {
      const hook = await endpoint(receiver.url);
      const r = await rule({ name: 'Loss on the way in', enabled: true, condition: { kind: 'call-issue', issueType: 'downlink-loss' } });
      const dashboard = await dashboardSocket(t, key(), { alerts: true });
      const live: AlertNotification[] = [];
      dashboard.on('notification', (n: AlertNotification) => live.push(n));

      const call = await liveCall('alert-issue', ['alice', 'bob']);
      const first = await insertIssue(call, 'alice', 'downlink-loss');
      await vi.waitFor(() => expect(ofRule(r.id)).toHaveLength(1), { timeout: 15_000 });
      const fired = ofRule(r.id)[0]!;
      expect(fired).toMatchObject({
        state: 'firing',
        rule: { id: r.id, name: 'Loss on the way in' },
        alert: { callId: 'alert-issue', participantId: 'alice', resolvedAt: null },
      });
      expect(fired.alert.summary).toContain('downlink-loss');

      // The documented recipe and the Standard Webhooks library both verify it; a changed body does not.
      const got = receiver.accepted.find((a) => a.id === fired.id)!;
      expect(verifyDelivery(hook.secret, got.headers, got.body)).toBe(true);
      expect(verifyDelivery(hook.secret, got.headers, got.body.replace('alice', 'alicf'))).toBe(false);
      expect(verifyDelivery(hook.secret, got.headers, got.body, Date.now() / 1000 + 600)).toBe(false);
      expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(fired);

      // alice's other stream losing packets too is the same alert. A sentinel: the issue on bob fires a
      // round or more later; by then alice's would have fired again.
      const second = await insertIssue(call, 'alice', 'downlink-loss', 0, 1);
      await insertIssue(call, 'bob', 'downlink-loss');
      await vi.waitFor(() => expect(ofRule(r.id).map((n) => n.alert.participantId)).toEqual(['alice', 'bob']), { timeout: 15_000 });

      await t.db.pool.query('UPDATE call_issue SET ended_at = now() WHERE id = ANY($1::bigint[])', [[first, second]]);
      await vi.waitFor(() => expect(ofRule(r.id).map((n) => n.state)).toEqual(['firing', 'firing', 'resolved']), { timeout: 15_000 });
      const resolved = ofRule(r.id)[2]!;
      expect(resolved.alert).toMatchObject({ id: fired.alert.id, participantId: 'alice' });
      expect(resolved.alert.resolvedAt).toBeGreaterThanOrEqual(fired.alert.startedAt);

      await vi.waitFor(() => expect(live.filter((n) => n.rule.id === r.id).map((n) => n.id)).toEqual(ofRule(r.id).map((n) => n.id)));
      expect((await notifications()).filter((n) => n.rule.id === r.id).map((n) => n.state)).toEqual(['resolved', 'firing', 'firing']);
      // Over: its participants, who never connected, are no one's concern in the tests after.
      await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = $1', [call]);
      dashboard.disconnect();
      await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
      await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
    },
  );

  it(
    "page a sender's cause once: its receivers' symptoms are its alert, carried on when the link is found after the symptom fired",
    { timeout: 60_000 },
    async () => {
      const hook = await endpoint(receiver.url);
      // The tests before leave issues of this type open in other calls: they are over.
      await t.db.pool.query("UPDATE call_issue SET ended_at = now() WHERE ended_at IS NULL AND type = 'downlink-loss'");
      const r = await rule({
        name: 'Loss on the way in (causes)',
        enabled: true,
        condition: { kind: 'call-issue', issueType: 'downlink-loss' },
      });
      const call = await liveCall('alert-cause', ['alice', 'bob', 'carol']);
      // bob loses packets: an alert for bob, before anything is known of why.
      const bobs = await insertIssue(call, 'bob', 'downlink-loss');
      await vi.waitFor(() => expect(ofRule(r.id).map((n) => [n.state, n.alert.participantId])).toEqual([['firing', 'bob']]), {
        timeout: 15_000,
      });
      // alice's uplink is found congested and bob's loss linked to it; carol's loss follows from it too.
      const cause = await insertIssue(call, 'alice', 'uplink-congestion');
      await t.db.pool.query('UPDATE call_issue SET caused_by = $2 WHERE id = $1', [bobs, cause]);
      const carols = await insertIssue(call, 'carol', 'downlink-loss');
      await t.db.pool.query('UPDATE call_issue SET caused_by = $2 WHERE id = $1', [carols, cause]);
      await vi.waitFor(
        async () => {
          const { rows } = await t.db.pool.query<{ participant: string; summary: string }>(
            'SELECT participant, summary FROM alert WHERE rule_id = $1 AND resolved_at IS NULL',
            [r.id],
          );
          expect(rows).toHaveLength(1);
          expect(rows[0]!.participant).toBe('alice');
          // What the rule is about first, then the cause it follows from.
          expect(rows[0]!.summary).toMatch(
            /^downlink-loss \(warning\) on (bob|carol) in call alert-cause: .*; it follows from uplink-congestion \(warning\) on alice: /,
          );
        },
        { timeout: 15_000 },
      );
      // A sentinel: an issue of an unlinked participant fires its own alert; by then a second page for the cause would have come.
      const daves = await insertIssue(call, 'dave', 'downlink-loss');
      await vi.waitFor(
        () =>
          expect(ofRule(r.id).map((n) => [n.state, n.alert.participantId])).toEqual([
            ['firing', 'bob'],
            ['firing', 'dave'],
          ]),
        { timeout: 15_000 },
      );
      await t.db.pool.query('UPDATE call_issue SET ended_at = now() WHERE id = ANY($1::bigint[])', [[bobs, carols, cause, daves]]);
      await vi.waitFor(() => expect(ofRule(r.id).map((n) => n.state)).toEqual(['firing', 'firing', 'resolved', 'resolved']), {
        timeout: 15_000,
      });
      expect(
        ofRule(r.id)
          .filter((n) => n.state === 'resolved')
          .map((n) => n.alert.participantId)
          .sort(),
      ).toEqual(['alice', 'dave']);
      // Over: its participants, who never connected, are no one's concern in the tests after.
      await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = $1', [call]);
      await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
      await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
    },
  );

  it("judge production's calls, and the lab's only for a rule that asks for them", { timeout: 60_000 }, async () => {
    const hook = await endpoint(receiver.url);
    const condition = { kind: 'call-issue', issueType: 'high-rtt' } as const;
    const production = await rule({ name: 'RTT (production)', enabled: true, condition });
    const lab = await rule({ name: 'RTT (lab too)', enabled: true, condition, includeLab: true });
    expect([production.includeLab, lab.includeLab]).toEqual([false, true]);
    const labCall = await liveCall('alert-lab-run', ['lab-p0']);
    await t.db.pool.query(`UPDATE call SET metadata = '{"lab": true, "scenario": "bw-steps"}' WHERE id = $1`, [labCall]);
    await insertIssue(labCall, 'lab-p0', 'high-rtt');
    await vi.waitFor(() => expect(ofRule(lab.id).map((n) => n.alert.participantId)).toEqual(['lab-p0']), { timeout: 15_000 });
    // A sentinel: a production call's issue fires the production rule; by then the lab's would have too.
    const prodCall = await liveCall('alert-production', ['prod-p0']);
    await insertIssue(prodCall, 'prod-p0', 'high-rtt');
    await vi.waitFor(() => expect(ofRule(production.id).map((n) => n.alert.participantId)).toEqual(['prod-p0']), { timeout: 15_000 });
    await vi.waitFor(() => expect(ofRule(lab.id).map((n) => n.alert.participantId)).toEqual(['lab-p0', 'prod-p0']), { timeout: 15_000 });
    await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = ANY($1::bigint[])', [[labCall, prodCall]]);
    for (const r of [production, lab]) await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it('end, not resolve, when their participant leaves while they hold', { timeout: 60_000 }, async () => {
    const hook = await endpoint(receiver.url);
    const r = await rule({ name: 'Loss (leaving)', enabled: true, condition: { kind: 'call-issue', issueType: 'bursty-loss' } });
    const call = await liveCall('alert-left', ['erin', 'fred']);
    const [erins, freds] = [await insertIssue(call, 'erin', 'bursty-loss'), await insertIssue(call, 'fred', 'bursty-loss')];
    await vi.waitFor(() => expect(ofRule(r.id)).toHaveLength(2), { timeout: 15_000 });
    // erin leaves with her issue open (it ends with her); fred's clears while he stays.
    await t.db.pool.query("UPDATE participant SET left_at = now() WHERE call_id = $1 AND external_id = 'erin'", [call]);
    await t.db.pool.query('UPDATE call_issue SET ended_at = now() WHERE id = ANY($1::bigint[])', [[erins, freds]]);
    await vi.waitFor(
      () =>
        expect(
          ofRule(r.id)
            .filter((n) => n.state !== 'firing')
            .map((n) => [n.alert.participantId, n.state])
            .sort(),
        ).toEqual([
          ['erin', 'ended'],
          ['fred', 'resolved'],
        ]),
      { timeout: 15_000 },
    );
    await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = $1', [call]);
    await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it("on a call's verdict, the calls list's: fair or poor as its issues say, ended with the call", { timeout: 60_000 }, async () => {
    const hook = await endpoint(receiver.url);
    const poor = await rule({ name: 'Poor calls', enabled: true, condition: { kind: 'call-verdict', atLeast: 'poor' } });
    const fair = await rule({ name: 'Calls not good', enabled: true, condition: { kind: 'call-verdict', atLeast: 'fair' } });
    const call = await liveCall('alert-verdict', ['gil', 'hal']);
    const issue = await insertIssue(call, 'gil', 'high-jitter');
    // A warning: fair. Both rules are judged in the same round: the poor one would have fired with it.
    await vi.waitFor(
      () =>
        expect(ofRule(fair.id).map((n) => [n.state, n.alert.callId, n.alert.participantId])).toEqual([['firing', 'alert-verdict', null]]),
      { timeout: 15_000 },
    );
    expect(ofRule(fair.id)[0]!.alert.summary).toBe('call alert-verdict is judged fair: high-jitter (warning)');
    expect(ofRule(poor.id)).toEqual([]);
    await t.db.pool.query("UPDATE call_issue SET severity = 'critical' WHERE id = $1", [issue]);
    await vi.waitFor(() => expect(ofRule(poor.id).map((n) => n.state)).toEqual(['firing']), { timeout: 15_000 });
    // Still one alert on the call for the fair-or-worse rule; the call ending ends both.
    await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = $1', [call]);
    await vi.waitFor(
      () => expect([...ofRule(fair.id), ...ofRule(poor.id)].map((n) => n.state)).toEqual(['firing', 'ended', 'firing', 'ended']),
      { timeout: 15_000 },
    );
    for (const r of [poor, fair]) await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it("on a call's verdict by its score alone, kept as the call goes: each settled window added once", { timeout: 60_000 }, async () => {
    const hook = await endpoint(receiver.url);
    const fair = await rule({ name: 'Scored low', enabled: true, condition: { kind: 'call-verdict', atLeast: 'fair' } });
    const [audio, video] = await receivedStreams('alert-verdict-score', 'ivy', ['audio', 'video']);
    const call = (await t.db.pool.query<{ id: string }>("SELECT id FROM call WHERE external_id = 'alert-verdict-score'")).rows[0]!.id;
    const t0 = Date.now() - 120_000;
    const windows = (stream: number, kind: 'audio' | 'video', from: number, mos: number[]) =>
      mos.map((m, k) => ({ callDbId: Number(call), point: point(stream, 'ivy', kind, t0 + (from + k) * 5000, m) }));
    // The participant's windows: what it heard and saw, from its two streams' written apart (in either order).
    const [low, high, mid] = [experienced(4, 1.6), experienced(4.5, 4.2), experienced(3, 3)];
    await insertScores(t.db.pool, windows(audio!, 'audio', 0, Array<number>(6).fill(4)));
    await insertScores(t.db.pool, windows(video!, 'video', 0, Array<number>(12).fill(1.6)));
    await insertScores(t.db.pool, windows(audio!, 'audio', 6, Array<number>(6).fill(4)));
    const { rows: written } = await t.db.pool.query<{ score: number }>('SELECT score FROM participant_score WHERE call_id = $1', [call]);
    expect(written).toHaveLength(12);
    for (const r of written) expect(r.score).toBeCloseTo(low, 5);
    await vi.waitFor(() => expect(ofRule(fair.id).map((n) => n.state)).toEqual(['firing']), { timeout: 15_000 });
    expect(ofRule(fair.id)[0]!.alert.summary).toBe(`call alert-verdict-score is judged fair: score ${low.toFixed(2)} with no issue`);
    // The windows 30 s or more behind the newest (0 to 5 of 0 to 11) are kept as a count and a sum.
    const fold = async () =>
      (await t.db.pool.query<{ windows: number; total: number }>('SELECT windows, total FROM call_score_fold WHERE call_id = $1', [call]))
        .rows;
    expect(await fold()).toEqual([{ windows: 6, total: expect.closeTo(6 * low, 4) as number }]);

    // Better windows come: the score so far rises past 3 and the alert resolves; the settled ones are added once each.
    await insertScores(t.db.pool, [
      ...windows(audio!, 'audio', 12, Array<number>(24).fill(4.5)),
      ...windows(video!, 'video', 12, Array<number>(24).fill(4.2)),
    ]);
    await vi.waitFor(() => expect(ofRule(fair.id).map((n) => n.state)).toEqual(['firing', 'resolved']), { timeout: 15_000 });
    await apiSend(t, 'DELETE', `/alerts/rules/${fair.id}`, key());
    const settled = await fold();
    expect(settled).toEqual([{ windows: 30, total: expect.closeTo(12 * low + 18 * high, 3) as number }]);
    // Read again with nothing new: nothing added twice; the same score as from every window.
    const [live] = await liveScores(t.db.pool, [call]);
    expect(await fold()).toEqual(settled);
    const storedScore = async () => (await callJudgements(t.db.pool, [BigInt(call)])).get(String(call))!.score!;
    let stored = await storedScore();
    expect(stored).toBeCloseTo((12 * low + 24 * high) / 36, 4);
    expect(live!.score).toBeCloseTo(stored, 9);
    // A read that folds windows in scores them too, in the same statement: 6 windows more settle the 6 before them.
    await insertScores(t.db.pool, [
      ...windows(audio!, 'audio', 36, Array<number>(6).fill(3)),
      ...windows(video!, 'video', 36, Array<number>(6).fill(3)),
    ]);
    const [folding] = await liveScores(t.db.pool, [call]);
    expect((await fold())[0]!.windows).toBe(36);
    stored = await storedScore();
    expect(stored).toBeCloseTo((12 * low + 24 * high + 6 * mid) / 42, 4);
    expect(folding!.score).toBeCloseTo(stored, 9);
    // The call ends: its score is written on it and the running one goes.
    await t.db.pool.query('UPDATE call SET ended_at = now() WHERE id = $1', [call]);
    await storeCallScore(t.db.pool, t.projects[0]!.projectId, 'alert-verdict-score');
    expect(await fold()).toEqual([]);
    const { rows: ended } = await t.db.pool.query<{ score: number }>('SELECT score FROM call WHERE id = $1', [call]);
    expect(ended[0]!.score).toBeCloseTo(stored, 4);
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it('on a call: a score under the threshold for long enough, and a participant that never connects', { timeout: 60_000 }, async () => {
    const hook = await endpoint(receiver.url);
    const low = await rule({ name: 'Poor call', enabled: true, condition: { kind: 'call-score', below: 3, forS: 15 } });
    const stuck = await rule({ name: 'Stuck joining', enabled: true, condition: { kind: 'never-connected', afterS: 20 } });
    const call = await liveCall('alert-score', ['dave']);
    // carol receives one stream; its last three windows (15 s) score 2.1, 2.4, 2.0; those before, 4.
    const [stream] = await receivedStreams('alert-score', 'carol', ['audio']);
    const t0 = Date.now() - 30_000;
    const window = (k: number, mos: number) => ({ callDbId: Number(call), point: point(stream!, 'carol', 'audio', t0 + k * 5000, mos) });
    await insertScores(
      t.db.pool,
      [4.2, 4.0, 2.1, 2.4, 2.0].map((mos, k) => window(k, mos)),
    );
    // dave joined 25 s ago and has not connected; carol connects now.
    await t.db.pool.query(
      `UPDATE participant SET joined_at = now() - interval '25 seconds', registered_at = now() - interval '25 seconds' WHERE call_id = $1`,
      [call],
    );
    await t.db.pool.query(
      `INSERT INTO call_event (project_id, call_id, participant_id, session, seq, ts, type, detail)
       SELECT project_id, call_id, id, 's1', 99, now(), 'connection-state', 'connected' FROM participant WHERE external_id = 'carol' AND call_id = $1`,
      [call],
    );
    await vi.waitFor(() => expect(ofRule(low.id)).toHaveLength(1), { timeout: 15_000 });
    expect(ofRule(low.id)[0]!.alert).toMatchObject({ callId: 'alert-score', participantId: 'carol' });
    expect(ofRule(low.id)[0]!.alert.value).toBeCloseTo((2.1 + 2.4 + 2.0) / 3, 5);
    await vi.waitFor(() => expect(ofRule(stuck.id).map((n) => [n.state, n.alert.participantId])).toEqual([['firing', 'dave']]), {
      timeout: 15_000,
    });

    // A better window clears the score; dave connecting clears the other.
    await insertScores(t.db.pool, [window(6, 3.9)]);
    await t.db.pool.query(
      `INSERT INTO call_event (project_id, call_id, participant_id, session, seq, ts, type, detail)
       SELECT project_id, call_id, id, 's1', 99, now(), 'ice-connection-state', 'completed' FROM participant WHERE external_id = 'dave' AND call_id = $1`,
      [call],
    );
    await vi.waitFor(() => expect(ofRule(low.id).map((n) => n.state)).toEqual(['firing', 'resolved']), { timeout: 15_000 });
    await vi.waitFor(() => expect(ofRule(stuck.id).map((n) => n.state)).toEqual(['firing', 'resolved']), { timeout: 15_000 });
    for (const r of [low, stuck]) await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it(
    'on the fleet: the share of calls with an issue and of participants who never connected, over 15 minutes',
    { timeout: 60_000 },
    async () => {
      const hook = await endpoint(receiver.url, 1);
      // Project 1: four calls, two with high-rtt; six participants, two never connected (one left, one waited 40 s).
      const calls = await Promise.all([0, 1, 2, 3].map((k) => liveCall(`fleet-${k}`, k < 2 ? [`a${k}`, `b${k}`] : [`a${k}`], 1)));
      for (const k of [0, 1]) await insertIssue(calls[k]!, `a${k}`, 'high-rtt', 1);
      await t.db.pool.query(
        `INSERT INTO call_event (project_id, call_id, participant_id, session, seq, ts, type, detail)
       SELECT project_id, call_id, id, 's1', 99, now(), 'connection-state', 'connected' FROM participant WHERE external_id IN ('a0', 'a1', 'a2', 'a3')`,
      );
      await t.db.pool.query(`UPDATE participant SET left_at = now() WHERE external_id = 'b0'`);
      await t.db.pool.query(
        `UPDATE participant SET joined_at = now() - interval '40 seconds', registered_at = now() - interval '40 seconds' WHERE external_id = 'b1'`,
      );
      const share = await rule(
        {
          name: 'RTT across calls',
          enabled: true,
          condition: { kind: 'fleet-issue-share', issueType: 'high-rtt', abovePct: 40, minCalls: 4 },
        },
        1,
      );
      const tooFew = await rule(
        {
          name: 'needs 5 calls',
          enabled: true,
          condition: { kind: 'fleet-issue-share', issueType: 'high-rtt', abovePct: 40, minCalls: 5 },
        },
        1,
      );
      const setup = await rule(
        { name: 'Set-up failures', enabled: true, condition: { kind: 'fleet-setup-failures', abovePct: 30, minParticipants: 6 } },
        1,
      );
      await vi.waitFor(() => expect(ofRule(share.id)).toHaveLength(1), { timeout: 15_000 });
      expect(ofRule(share.id)[0]!.alert).toMatchObject({ callId: null, value: 50 });
      await vi.waitFor(() => expect(ofRule(setup.id)).toHaveLength(1), { timeout: 15_000 });
      expect(ofRule(setup.id)[0]!.alert.value).toBeCloseTo((100 * 2) / 6, 3);
      expect(ofRule(tooFew.id)).toEqual([]);

      // Disabling a rule resolves its alert.
      await apiSend(t, 'PUT', `/alerts/rules/${share.id}`, key(1), {
        name: 'RTT across calls',
        enabled: false,
        condition: { kind: 'fleet-issue-share', issueType: 'high-rtt', abovePct: 40, minCalls: 4 },
      });
      await vi.waitFor(() => expect(ofRule(share.id).map((n) => n.state)).toEqual(['firing', 'resolved']), { timeout: 15_000 });
      expect(ofRule(tooFew.id)).toEqual([]);
      // Project 0 heard nothing of project 1's alerts.
      expect((await notifications(0)).filter((n) => [share.id, setup.id].includes(n.rule.id))).toEqual([]);
      for (const r of [share, tooFew, setup]) await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key(1));
      await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key(1));
    },
  );
});

describe('webhook deliveries', () => {
  it('to a receiver that is down are delivered once it is up, with every attempt in the delivery log', { timeout: 60_000 }, async () => {
    const down = await WebhookReceiver.start();
    await down.stop();
    const hook = await endpoint(down.url, 0, 'slack');
    const r = await rule({ name: 'Tested', enabled: true, condition: { kind: 'call-score', below: 2, forS: 30 } });
    const test = await apiSend<AlertNotification>(t, 'POST', `/alerts/rules/${r.id}/test`, key());
    expect(test).toMatchObject({ status: 201, body: { state: 'test', rule: { id: r.id } } });
    const log = async () => (await api<DeliveryLog>(t, `/alerts/endpoints/${hook.id}/deliveries`, key())).body.attempts;
    await vi.waitFor(async () => expect((await log()).length).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    expect((await log())[0]).toMatchObject({ notificationId: test.body.id, attempt: 1, statusCode: null, delivery: 'pending' });
    expect((await log())[0]!.error).toMatch(/ECONNREFUSED/);

    await down.listen();
    await vi.waitFor(() => expect(down.accepted.map((a) => a.id)).toEqual([test.body.id]), { timeout: 20_000 });
    // Slack's body: a text line naming the rule.
    expect(JSON.parse(down.accepted[0]!.body)).toEqual({ text: expect.stringContaining('Test alert: Tested') });
    await vi.waitFor(async () => expect((await log())[0]).toMatchObject({ statusCode: 200, error: null, delivery: 'delivered' }));
    const attempts = await log();
    expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, k) => attempts.length - k));
    await down.stop();
    await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it(
    'to an address the server may not reach are given up at the first attempt, whose error tells no DNS answer',
    { timeout: 30_000 },
    async () => {
      // The tests' servers reach loopback only: a public name is refused before it is looked up.
      const hook = await endpoint('http://hooks.example.com/x');
      const r = await rule({ name: 'Unreachable', enabled: true, condition: { kind: 'call-score', below: 2, forS: 30 } });
      expect((await apiSend(t, 'POST', `/alerts/rules/${r.id}/test`, key())).status).toBe(201);
      const log = async () => (await api<DeliveryLog>(t, `/alerts/endpoints/${hook.id}/deliveries`, key())).body.attempts;
      await vi.waitFor(async () => expect(await log()).toHaveLength(1), { timeout: 10_000 });
      expect((await log())[0]).toMatchObject({
        attempt: 1,
        statusCode: null,
        delivery: 'failed',
        error: expect.stringMatching(/not looked up/),
      });
      await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
      await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
    },
  );

  it('go to the endpoints a rule names, or to every one when it names none', { timeout: 30_000 }, async () => {
    const [one, two] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
    const [first, second] = [await endpoint(one.url), await endpoint(two.url)];
    const only = await rule({
      name: 'Only the first',
      enabled: true,
      condition: { kind: 'call-score', below: 2, forS: 30 },
      endpointIds: [first.id],
    });
    const every = await rule({ name: 'Every one', enabled: true, condition: { kind: 'call-score', below: 2, forS: 30 } });
    expect(only.endpointIds).toEqual([first.id]);
    expect(every.endpointIds).toBeNull();
    const a = (await apiSend<AlertNotification>(t, 'POST', `/alerts/rules/${only.id}/test`, key())).body;
    const b = (await apiSend<AlertNotification>(t, 'POST', `/alerts/rules/${every.id}/test`, key())).body;
    await vi.waitFor(() => expect(one.accepted.map((r) => r.id).sort()).toEqual([a.id, b.id].sort()), { timeout: 10_000 });
    await vi.waitFor(() => expect(two.accepted.map((r) => r.id)).toEqual([b.id]), { timeout: 10_000 });
    // The sentinel: b reached the second endpoint, sent after a; a never will (no delivery row for it).
    expect(
      (await t.db.pool.query('SELECT 1 FROM webhook_delivery WHERE notification_id = $1 AND endpoint_id = $2', [a.id, second.id])).rowCount,
    ).toBe(0);
    for (const r of [only, every]) await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    for (const e of [first, second]) await apiSend(t, 'DELETE', `/alerts/endpoints/${e.id}`, key());
    await Promise.all([one.stop(), two.stop()]);
  });

  it('never hold ingest: a batch is acknowledged while a receiver holds its delivery unanswered', { timeout: 30_000 }, async () => {
    const slow = await WebhookReceiver.start();
    slow.hold();
    const hook = await endpoint(slow.url);
    const r = await rule({ name: 'Held', enabled: true, condition: { kind: 'call-score', below: 2, forS: 30 } });
    await apiSend(t, 'POST', `/alerts/rules/${r.id}/test`, key());
    await vi.waitFor(() => expect(slow.requests).toHaveLength(1), { timeout: 10_000 });
    const socket = await ingestSocket(t.url, handshake(t.projects[0]!, 'held-ingest', 'erin'));
    expect(await send(socket, { n: 0, t0: Date.now(), conns: [], streams: [], s: [], e: [] })).toMatchObject({ ok: true });
    // The sentinel: the delivery is still held when the batch has been acknowledged.
    expect(slow.requests).toHaveLength(1);
    socket.disconnect();
    await slow.stop();
    await apiSend(t, 'DELETE', `/alerts/rules/${r.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });

  it('are delivered after a server killed mid-delivery starts again, once per id', { timeout: 120_000 }, async () => {
    const database = await freshDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'rtcscope-alerts-'));
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      LOCAL_PROJECT: 'off',
      LOG_LEVEL: 'error',
      WEBHOOK_PRIVATE_ADDRESSES: 'allow',
      PORT: String(await freePort()),
    };
    let server = await startServerProcess(env);
    const sink = await WebhookReceiver.start();
    try {
      const { out } = await runAdmin(database.url, 'create-project', 'Killed');
      const apiKey = /API key:\s+(rk_\S+)/.exec(out)![1]!;
      const remote = { ...t, url: server.url };
      const hook = (
        await apiSend<WebhookEndpoint>(remote, 'POST', '/alerts/endpoints', apiKey, { url: sink.url, format: 'json', enabled: true })
      ).body;
      const r = (
        await apiSend<AlertRule>(remote, 'POST', '/alerts/rules', apiKey, {
          name: 'Killed',
          enabled: true,
          condition: { kind: 'call-score', below: 2, forS: 30 },
        })
      ).body;
      sink.hold();
      const sent = (await apiSend<AlertNotification>(remote, 'POST', `/alerts/rules/${r.id}/test`, apiKey)).body;
      await vi.waitFor(() => expect(sink.requests).toHaveLength(1), { timeout: 10_000 });
      await server.stop('SIGKILL');
      sink.release();
      server = await startServerProcess(env);
      await vi.waitFor(() => expect(sink.accepted.map((a) => a.id)).toEqual([sent.id]), { timeout: 40_000, interval: 200 });
      expect(sink.requests.every((q) => q.id === sent.id)).toBe(true);
      const { rows } = await database.db.pool.query<{ state: string; attempts: number }>(
        'SELECT state, attempts FROM webhook_delivery WHERE endpoint_id = $1',
        [hook.id],
      );
      expect(rows).toEqual([{ state: 'delivered', attempts: 2 }]);
    } finally {
      await server.stop();
      await sink.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('alert settings', () => {
  it('refuse what is not valid and change nothing, and are each project’s own', async () => {
    const before = await count(t.db, 'alert_rule');
    const bad: [unknown, RegExp][] = [
      [{ name: 'x', enabled: true, condition: { kind: 'call-issue', issueType: 'no-such-issue' } }, /issue types: .*downlink-loss/],
      [{ name: 'x', enabled: true, condition: { kind: 'call-score', below: 7, forS: 10 } }, /below/],
      [{ name: 'x', enabled: true, condition: { kind: 'never-connected', afterS: 1 } }, /afterS/],
      [{ name: '', enabled: true, condition: { kind: 'never-connected', afterS: 10 } }, /name/],
      [{ name: 'x', enabled: true, condition: { kind: 'fleet-issue-share', issueType: 'high-rtt', abovePct: 10 } }, /minCalls/],
      [{ name: 'x', enabled: true, condition: { kind: 'call-score', below: 3, forS: 10, extra: 1 } }, /condition/],
    ];
    for (const [body, message] of bad) {
      const res = await apiSend<{ message: string }>(t, 'POST', '/alerts/rules', key(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    for (const url of ['ftp://example.com/x', 'not a url', 'https://']) {
      expect((await apiSend(t, 'POST', '/alerts/endpoints', key(), { url, format: 'json', enabled: true })).status).toBe(400);
    }
    expect(await count(t.db, 'alert_rule')).toBe(before);

    const mine = await rule({ name: 'Mine', enabled: true, condition: { kind: 'never-connected', afterS: 60 } });
    const hook = await endpoint('https://hooks.example.com/rtc');
    expect(
      (await apiSend(t, 'PUT', `/alerts/rules/${mine.id}`, key(1), { name: 'Theirs', enabled: false, condition: mine.condition })).status,
    ).toBe(404);
    expect((await apiSend(t, 'DELETE', `/alerts/rules/${mine.id}`, key(1))).status).toBe(404);
    expect((await apiSend(t, 'POST', `/alerts/rules/${mine.id}/test`, key(1))).status).toBe(404);
    expect((await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key(1))).status).toBe(404);
    expect((await api(t, `/alerts/endpoints/${hook.id}/deliveries`, key(1))).status).toBe(404);
    expect((await api<{ rules: AlertRule[] }>(t, '/alerts/rules', key(1))).body.rules.map((r) => r.id)).not.toContain(mine.id);
    expect((await api<{ endpoints: WebhookEndpoint[] }>(t, '/alerts/endpoints', key(1))).body.endpoints.map((e) => e.id)).not.toContain(
      hook.id,
    );
    expect((await api<{ rules: AlertRule[] }>(t, '/alerts/rules', key(0))).body.rules.find((r) => r.id === mine.id)).toMatchObject({
      name: 'Mine',
      enabled: true,
    });
    expect(
      (await apiSend(t, 'PUT', `/alerts/rules/not-a-uuid`, key(), { name: 'x', enabled: true, condition: mine.condition })).status,
    ).toBe(400);
    // A rule may not send to another project's endpoint.
    const theirs = await apiSend<{ message: string }>(t, 'POST', '/alerts/rules', key(1), {
      name: 'x',
      enabled: true,
      condition: mine.condition,
      endpointIds: [hook.id],
    });
    expect(theirs.status).toBe(400);
    expect(theirs.body.message).toBe(`endpointIds: this project has no webhook endpoint ${hook.id}`);
    await apiSend(t, 'DELETE', `/alerts/rules/${mine.id}`, key());
    await apiSend(t, 'DELETE', `/alerts/endpoints/${hook.id}`, key());
  });
});
