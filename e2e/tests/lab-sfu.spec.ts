import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { summarizeRun } from '@rtcscope/experiments';
import { launchChromium, runScenario } from '@rtcscope/lab';
import { type CallDetail, type CallDiagnosis, type NotificationList, type Series, streamFieldIndex } from '@rtcscope/protocol';
import { janusTrack } from '@rtcscope/protocol/fields';
import { apiReader, downlinkLossRule, startProduct } from '../support/product.js';
import { AWAY_FROM_S, AWAY_TO_S, CAP_FROM_S, expectEachFaultPlaced, issuesOf, sfuScenario } from '../support/sfu-call.js';
import { openWithKey } from '../support/open-with-key.js';

const CAP_KBPS = 500;

test("three people through Janus, one in Firefox: copies matched to their senders, everything sent forwarded to both others, a publisher's cap reaching every subscriber within ±10 %, a mute and a camera off raising nothing and lowering no score, and each fault placed, one cause per problem", async () => {
  const { server, keys } = await startProduct('lab-sfu', { CALL_IDLE_TIMEOUT_S: '60' });
  try {
    const scenario = sfuScenario({
      id: 'sfu-e2e',
      title: "Three through an SFU: clean, then one subscriber's loss, then one publisher's cap",
      sfu: 'janus',
      capKbps: CAP_KBPS,
    });
    // A support team's rule on loss: one subscriber's lossy downlink is one alert, whatever its streams and symptoms.
    const rule = await downlinkLossRule({ server, keys });
    // Janus reports its own view of the room too, as the CLI's runs have it do (an API key as basic auth).
    const sfuEvents = { url: `${server.url}/api/v1/sfu/janus/events`, apiKey: keys.apiKey };
    const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario, runId: 'e2e', repetition: 1, sfuEvents });
    const get = apiReader({ server, keys });
    const detail = await get<CallDetail>(`/calls/${run.callId}`);
    const ids = ['p0', 'p1', 'p2'];
    const streamsOf = (p: string, key: string) =>
      detail.participants.find((x) => x.id === p)!.connections.find((c) => c.key === key)!.streams;

    // The SFU's own view joins the call by the room its streams name: each member is the participant that
    // sent its feed, received the two others' feeds, and had both connections up.
    const feedOf = (p: string) => janusTrack(streamsOf(p, 'publish')[0]!.trackId)?.feed;
    // Listed in the order they joined, which the lab does not fix: compared as a set.
    const members = detail.sfu!.members.map((m) => [m.display, m.participantId, m.subscribedTo.length]);
    expect(members.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual(ids.map((p) => [p, p, 2]));
    for (const m of detail.sfu!.members) {
      expect(m.feed).toBe(feedOf(m.participantId!));
      expect(m.connections.map((c) => [c.role, c.upAt !== null])).toEqual([
        ['publisher', true],
        ['subscriber', true],
      ]);
    }

    // Each person publishes on one connection and subscribes on another. Janus gives every copy an SSRC
    // and an msid of its own; the copies are matched to their senders all the same (by the feed Janus names).
    for (const p of ids) {
      const received = streamsOf(p, 'subscribe');
      expect(
        received
          .filter((s) => s.kind === 'video')
          .map((s) => s.from)
          .sort(),
      ).toEqual(ids.filter((id) => id !== p));
      const others = ids.filter((o) => o !== p).flatMap((o) => [...streamsOf(o, 'publish'), ...streamsOf(o, 'subscribe')]);
      for (const s of streamsOf(p, 'publish')) expect(others.some((o) => o.ssrc === s.ssrc)).toBe(false);
    }

    // Each sends once and the SFU forwards it to the two others: the call receives twice what it sends
    // (Jansen et al.: each downlink 2.00 times its uplink for three, with senders alike; Firefox's fake
    // camera sends a fifth of Chromium's, so here only the sums compare).
    const series = await get<Series>(`/calls/${run.callId}/series?maxPoints=10000`);
    const summary = summarizeRun(run, scenario, detail, series);
    const sum = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
    const forwarded = sum(summary.flows.map((f) => f.meanReceivedKbps)) / sum(summary.flows.map((f) => f.meanKbps));
    console.log(
      `received / sent: ${forwarded.toFixed(2)} (${summary.flows.map((f) => `${f.participant} ${f.meanKbps?.toFixed(0)} up, ${f.meanReceivedKbps?.toFixed(0)} down`).join('; ')})`,
    );
    expect(forwarded).toBeGreaterThan(1.8);
    expect(forwarded).toBeLessThan(2.2);

    const diagnosis = await get<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
    const { at } = issuesOf(run, detail, diagnosis);
    const streams = detail.participants.flatMap((p) => p.connections.flatMap((c) => c.streams));
    // A muted participant and a camera off are people's choices: a picture taken off is not scored while
    // away (an idle feed is no one's loss), nothing anyone still receives scores worse for them, and p1,
    // who still sees everything it saw (only p0's voice fell silent), scores as before.
    // Each range holds a window's start (5-s windows): one that runs on into the next phase can only lower what is compared with.
    const windows = (from: number, to: number) => (w: { ts: number }) => w.ts >= at(from) && w.ts < at(to);
    const [before, away, back] = [windows(0, AWAY_FROM_S), windows(AWAY_FROM_S + 2, AWAY_TO_S - 5), windows(AWAY_TO_S + 2, AWAY_TO_S + 7)];
    const mean = (ws: { mos: number }[]) => ws.reduce((a, w) => a + w.mos, 0) / ws.length;
    const p1Video = new Set(streams.filter((s) => s.kind === 'video' && s.from === 'p1').map((s) => s.id));
    expect(p1Video.size).toBe(2);
    for (const s of diagnosis.scores.streams) {
      const [then, now, later] = [s.windows.filter(before), s.windows.filter(away), s.windows.filter(back)];
      const from = streams.find((x) => x.id === s.streamId)?.from;
      console.log(
        `${s.participantId} ${s.kind} from ${from}: ${mean(then).toFixed(2)} before, ${now.length ? mean(now).toFixed(2) : 'not scored'} while away, ${mean(later).toFixed(2)} after`,
      );
      if (p1Video.has(s.streamId)) expect(now).toEqual([]);
      else if (then.length && now.length && later.length) expect(mean(now)).toBeGreaterThan(Math.min(mean(then), mean(later)) - 0.3);
    }
    for (const p of ids) {
      const ws = diagnosis.scores.participants[p]!;
      console.log(
        `${p}'s score before, while p0 is muted and p1's camera off, and after: ${[before, away, back].map((k) => mean(ws.filter(k)).toFixed(2)).join(', ')}`,
      );
    }
    const p1Scores = diagnosis.scores.participants.p1!;
    expect(mean(p1Scores.filter(away))).toBeGreaterThan(Math.min(mean(p1Scores.filter(before)), mean(p1Scores.filter(back))) - 0.3);

    expectEachFaultPlaced(run, detail, diagnosis, series);
    // p2's downlink: one alert, p2's, though its four received streams lost packets; no one else's.
    const fired = (await get<NotificationList>('/alerts/notifications')).notifications.filter(
      (n) => n.rule.id === rule.id && n.state === 'firing' && n.alert.callId === run.callId && n.alert.startedAt < at(CAP_FROM_S) - 2000,
    );
    expect(fired.map((n) => `${n.alert.participantId}: ${n.alert.summary}`)).toEqual([expect.stringMatching(/^p2: /)]);

    // Under the cap: p0 sends within it, and each subscriber receives what p0 sends (the relay's ±10 %),
    // over the last 15 s of the run.
    const kbps = streamFieldIndex('kbps');
    const meanKbps = (streamIds: number[]) => {
      const perSecond = new Map<number, number>();
      for (const pt of series.streams) {
        if (!streamIds.includes(pt.id) || pt.ts < at(CAP_FROM_S + 15) || pt.ts > run.endedAt - 1000 || pt.v[kbps] === null) continue;
        const t = Math.round(pt.ts / 1000);
        perSecond.set(t, (perSecond.get(t) ?? 0) + pt.v[kbps]!);
      }
      return [...perSecond.values()].reduce((a, b) => a + b, 0) / perSecond.size;
    };
    const sent = meanKbps(streamsOf('p0', 'publish').map((s) => s.id));
    const received = ['p1', 'p2'].map((p) =>
      meanKbps(
        streamsOf(p, 'subscribe')
          .filter((s) => s.from === 'p0')
          .map((s) => s.id),
      ),
    );
    console.log(
      `under ${CAP_KBPS} kbit/s: p0 sends ${sent.toFixed(0)}, p1 receives ${received[0]!.toFixed(0)}, p2 (Firefox) ${received[1]!.toFixed(0)} kbit/s of it`,
    );
    expect(sent).toBeLessThan(CAP_KBPS * 1.1);
    expect(sent).toBeGreaterThan(CAP_KBPS * 0.5);
    for (const r of received) expect(Math.abs(r - sent)).toBeLessThan(sent * 0.1);

    // The call page says who receives whom.
    const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home'));
    try {
      const page = await browser.newPage();
      await openWithKey(page, server.url, keys.apiKey);
      // The page keeps the key once it found nobody signed in: going on before that would leave it behind.
      await page.waitForFunction(() => localStorage.getItem('rtcscope.apiKey') !== null);
      await page.goto(`${server.url}/calls/${encodeURIComponent(run.callId)}`);
      await expect(page.getByTestId('chart-fps')).toContainText('p1 ↓ video from p0');
      await expect(page.getByTestId('chart-fps')).toContainText('p1 ↓ video from p2');
      await expect(page.getByTestId('route-p0-video')).toContainText('p1, p2');
      await expect(page.getByTestId('sfu-members')).toContainText('p2');
      await expect(page.getByTestId('sfu-unmonitored')).toHaveCount(0);
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
});
