import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { summarizeRun } from '@rtcscope/experiments';
import { launchChromium, LIVEKIT_QUALITY, postLiveKitEvents, runScenario } from '@rtcscope/lab';
import { type CallDetail, type CallDiagnosis, type CallEvents, type Series, streamFieldIndex } from '@rtcscope/protocol';
import { openWithKey } from '../support/open-with-key.js';
import { apiReader, startProduct } from '../support/product.js';
import { AWAY_TO_S, CAP_FROM_S, END_S, expectEachFaultPlaced, issuesOf, LOSS_FROM_S, LOSS_TO_S, sfuScenario } from '../support/sfu-call.js';

const CAP_KBPS = 300;

test("three people through a real LiveKit, one in Firefox, joined with livekit-client and monitored by the SDK's adapter: every copy tied to its publisher by track SID, simulcast layers the SFU pauses raising nothing, a mute and a camera off raising nothing, and a subscriber's loss and a publisher's cap each placed, one cause per problem", async () => {
  const { server, keys } = await startProduct('lab-livekit', { CALL_IDLE_TIMEOUT_S: '60' });
  try {
    const scenario = sfuScenario({
      id: 'livekit-e2e',
      title: "Three through LiveKit: clean, then one subscriber's loss, then one publisher's cap",
      sfu: 'livekit',
      capKbps: CAP_KBPS,
    });
    // LiveKit's webhooks reach the server as the lab's command line has them go (an API key of the ingest scope).
    const liveKitEvents = postLiveKitEvents(server.url, keys.apiKey);
    const run = await runScenario({ server: server.url, ingestKey: keys.ingestKey, scenario, runId: 'e2e', repetition: 1, liveKitEvents });
    const get = apiReader({ server, keys });
    const detail = await get<CallDetail>(`/calls/${run.callId}`);
    const ids = ['p0', 'p1', 'p2'];
    const streams = detail.participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => ({ ...s, participant: p.id }))));
    const sent = (p: string) => streams.filter((s) => s.participant === p && s.direction === 'out');
    const received = (p: string) => streams.filter((s) => s.participant === p && s.direction === 'in');
    for (const s of streams)
      console.log(
        `${s.participant} ${s.direction} ${s.kind} ${s.trackId}${s.rid ? ` rid ${s.rid}` : ''}${s.from ? ` from ${s.from}` : ''}: ${s.state}`,
      );

    // The room's name is the call, each identity a participant; livekit-client's one connection each
    // carries what they send and receive. Every copy is tied to its publisher by LiveKit's track SID.
    expect(detail.participants.map((p) => p.id).sort()).toEqual(ids);
    for (const p of ids) {
      const from = received(p)
        .filter((s) => s.state !== 'never-active')
        .map((s) => `${s.kind} ${s.from}`)
        .sort();
      expect(from).toEqual(
        ids
          .filter((o) => o !== p)
          .flatMap((o) => [`audio ${o}`, `video ${o}`])
          .sort(),
      );
      for (const s of received(p).filter((x) => x.state !== 'never-active'))
        expect(sent(s.from!).map((x) => x.trackId)).toContain(s.trackId);
      // Chromium sends its camera in simulcast layers (rid), each a stream of its own.
      if (p !== 'p2') expect(sent(p).filter((s) => s.kind === 'video' && s.rid !== null).length).toBeGreaterThan(1);
    }

    // LiveKit's own view, from its webhooks: each member the participant whose sent tracks carry its
    // tracks' SIDs, with its audio and video, gone once it hung up.
    expect(detail.sfu?.sfu).toBe('livekit');
    // Members are listed in the order they joined, and the three join at once: compared as a set.
    const members = detail.sfu!.members.map((m) => [m.feed, m.participantId, m.published.map((t) => t.kind).sort(), m.leftAt !== null]);
    expect(members.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual(ids.map((p) => [p, p, ['audio', 'video'], true]));

    const series = await get<Series>(`/calls/${run.callId}/series?maxPoints=10000`);
    const summary = summarizeRun(run, scenario, detail, series);
    const sum = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
    const forwarded = sum(summary.flows.map((f) => f.meanReceivedKbps)) / sum(summary.flows.map((f) => f.meanKbps));
    console.log(
      `received / sent: ${forwarded.toFixed(2)} (${summary.flows.map((f) => `${f.participant} ${f.meanKbps?.toFixed(0)} up, ${f.meanReceivedKbps?.toFixed(0)} down`).join('; ')})`,
    );

    const diagnosis = await get<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
    const { at, show } = issuesOf(run, detail, diagnosis);
    expectEachFaultPlaced(run, detail, diagnosis, series);

    // The layers the SFU or the browser switched off meanwhile (dynacast; the cap's top layer): silent
    // seconds while another layer of the track went on, and no no-media raised of them.
    const kbps = streamFieldIndex('kbps');
    const silent = streams.filter(
      (s) =>
        s.direction === 'out' &&
        s.kind === 'video' &&
        s.rid !== null &&
        series.streams.some((pt) => pt.id === s.id && pt.ts > at(AWAY_TO_S + 5) && pt.ts < run.endedAt - 2000 && (pt.v[kbps] ?? 99) < 5),
    );
    console.log(`layers switched off a while: ${silent.map((s) => `${s.participant} ${s.rid} (${s.state})`).join(', ')}`);
    expect(silent.length).toBeGreaterThan(0);
    expect(show(diagnosis.issues.filter((i) => i.type === 'no-media' && silent.some((s) => s.id === i.streamId)))).toBe('none');

    // LiveKit's own judgement of each participant (livekit-client's ConnectionQuality), recorded as it
    // changed, beside rtcscope's score of what that participant saw and heard, phase by phase.
    const { events } = await get<CallEvents>(`/calls/${run.callId}/events`);
    const said = (p: string) =>
      events
        .filter((e) => e.participantId === p && e.type === 'metadata' && e.detail?.includes(LIVEKIT_QUALITY))
        .map((e) => ({ ts: e.ts, quality: (JSON.parse(e.detail!) as Record<string, string>)[LIVEKIT_QUALITY]! }));
    const phases = { clean: [0, LOSS_FROM_S], "p2's loss": [LOSS_FROM_S, LOSS_TO_S], "p0's cap": [CAP_FROM_S + 5, END_S] } as const;
    for (const p of ids) {
      const timeline = said(p);
      expect(timeline.length, `${p} recorded no ConnectionQuality`).toBeGreaterThan(0);
      const parts = Object.entries(phases).map(([name, [from, to]]) => {
        const seconds = new Map<string, number>();
        for (let t = from; t < to; t++) {
          const q = timeline.filter((x) => x.ts <= at(t)).at(-1)?.quality ?? 'unknown';
          seconds.set(q, (seconds.get(q) ?? 0) + 1);
        }
        const scores = diagnosis.scores.participants[p]!.filter((w) => w.ts >= at(from) && w.ts < at(to)).map((w) => w.mos);
        const score = scores.length ? (scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(2) : '–';
        return `${name}: LiveKit ${[...seconds].map(([q, n]) => `${q} ${n} s`).join(', ')}; rtcscope ${score}`;
      });
      console.log(`${p}: ${parts.join(' | ')}`);
    }

    // The call page shows LiveKit's view beside the participants'.
    const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-livekit'));
    try {
      const page = await browser.newPage();
      await openWithKey(page, server.url, keys.apiKey);
      await page.waitForFunction(() => localStorage.getItem('rtcscope.apiKey') !== null);
      await page.goto(`${server.url}/calls/${encodeURIComponent(run.callId)}`);
      await expect(page.getByTestId('sfu-members')).toContainText('LiveKit’s webhooks');
      await expect(page.getByTestId('sfu-members')).toContainText('p2');
      await expect(page.getByTestId('sfu-unmonitored')).toHaveCount(0);
      await expect(page.getByTestId('chart-fps')).toContainText('p1 ↓ video from p0');

      // Where a production LiveKit is to post: the project page takes its key and never shows the secret again.
      await page.goto(`${server.url}/project`);
      const settings = page.getByTestId('livekit-webhooks');
      await expect(settings).toContainText('No key set');
      await settings.getByLabel('API key').fill('APIprod01');
      await settings.getByLabel(/secret/).fill('p'.repeat(40));
      await settings.getByRole('button', { name: 'Save' }).click();
      await expect(settings.getByTestId('livekit-set')).toContainText('APIprod01');
      await expect(settings.getByTestId('livekit-config')).toContainText(`${server.url}/api/v1/sfu/livekit/webhook/`);
      await expect(settings.getByLabel(/secret/)).toHaveValue('');
      expect(await page.content()).not.toContain('p'.repeat(40));
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
});
