import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { AlertRule, CallDetail, CallDiagnosis, CallList, Insights, NotificationList } from '@rtcscope/protocol';
import { launchChromium, runScenario } from '@rtcscope/lab';
import { parseScenario } from '@rtcscope/scenario';
import { startProduct } from '../support/product.js';
import { openWithKey } from '../support/open-with-key.js';
import { cutPlaceholders } from '../support/placeholders.js';

test('a clean 10-fps camera call, watched by a third who sends nothing, has one verdict, not poor, in the API, the calls list, the call page, insights and alerts', async () => {
  const { server, keys } = await startProduct('verdict-data', { CALL_IDLE_TIMEOUT_S: '5' });
  const browser = await launchChromium(process.env.E2E_Y4M!, join(process.env.E2E_DIR!, 'home-verdict'));
  const api = async <T>(path: string, init: RequestInit = {}) =>
    (await (
      await fetch(`${server.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${keys.apiKey}`, 'content-type': 'application/json' },
      })
    ).json()) as T;
  try {
    const rule = (condition: object) =>
      api<AlertRule>('/alerts/rules', {
        method: 'POST',
        // A lab run: production's rules leave it alone.
        body: JSON.stringify({ name: JSON.stringify(condition), enabled: true, condition, includeLab: true }),
      });
    // A call that is not good pages; the sentinel (any scored call scores under 5) fires in the same round.
    const notGood = await rule({ kind: 'call-verdict', atLeast: 'fair' });
    const sentinel = await rule({ kind: 'call-score', below: 5, forS: 10 });
    const checked = parseScenario({
      id: 'clean-10fps',
      title: 'A clean camera call at 10 fps, with a viewer',
      // p2 watches: its connections' transceivers receive only, as a webinar's audience's do.
      participants: { count: 3, topology: 'mesh', viewers: [2], video: { width: 640, height: 360, fps: 10 } },
      links: { mode: 'per-participant', uplink: {}, downlink: {} },
      schedule: [],
      durationS: 40,
    });
    if (!checked.ok) throw new Error(checked.error.message);
    const result = await runScenario({
      server: server.url,
      ingestKey: keys.ingestKey,
      scenario: checked.value,
      runId: 'verdict',
      repetition: 1,
      // p0's page also opens what analytics services open beside a call: a connection with a data channel
      // alone that never connects, handed to the same monitor (rtcstats wraps every connection of a page).
      onCall: (call) =>
        void call.page(0).evaluate(async () => {
          const w = window as unknown as { lab: { monitor: { addPeerConnection(pc: RTCPeerConnection, o: { label: string }): void } } };
          const probe = new RTCPeerConnection();
          w.lab.monitor.addPeerConnection(probe, { label: 'probe' });
          probe.createDataChannel('ip-discovery');
          const far = new RTCPeerConnection();
          await probe.setLocalDescription();
          await far.setRemoteDescription(probe.localDescription!);
          await far.setLocalDescription();
          // Its far end's answer, never a candidate of it: ICE checks nothing and never connects.
          await probe.setRemoteDescription(far.localDescription!);
        }),
    });

    // The call ends once its participants have been silent 5 s; its verdict is then final.
    const listed = async () => (await api<CallList>(`/calls?q=${result.callId}&lab=true`)).calls.find((c) => c.id === result.callId);
    await expect.poll(async () => (await listed())?.state, { timeout: 30_000 }).toBe('ended');
    const verdict = (await listed())!.quality;
    const diagnosis = await api<CallDiagnosis>(`/calls/${result.callId}/diagnosis`);
    console.log(
      `verdict ${verdict}; ${diagnosis.issues.map((i) => `${i.participantId} ${i.type} ${i.severity}`).join(', ') || 'no issue'}`,
    );
    expect(['good', 'fair']).toContain(verdict);
    // The viewer sent nothing and received both others' media; nothing it lacks is anyone's issue, and
    // it has a score of what it saw and heard.
    const detail = await api<CallDetail>(`/calls/${result.callId}`);
    const viewer = detail.participants.find((p) => p.id === 'p2')!.connections.flatMap((c) => c.streams);
    expect(viewer.filter((x) => x.direction === 'out')).toEqual([]);
    expect(viewer.map((x) => `${x.kind} ${x.from} ${x.state}`).sort()).toEqual([
      'audio p0 active',
      'audio p1 active',
      'video p0 active',
      'video p1 active',
    ]);
    expect(diagnosis.issues.filter((i) => i.participantId === 'p2')).toEqual([]);
    expect(diagnosis.scores.participants.p2?.length).toBeGreaterThan(0);
    // p0's probe said what it negotiated, a data channel alone; it never connected, and raised nothing.
    const p0 = detail.participants.find((p) => p.id === 'p0')!.connections;
    expect(p0.find((c) => c.key === 'probe')?.media).toEqual([{ kind: 'application', direction: null }]);
    expect(p0.filter((c) => c.key !== 'probe').map((c) => c.media?.map((m) => m.kind).sort())).toEqual([
      ['audio', 'video'],
      ['audio', 'video'],
    ]);
    // The viewer's transceivers receive only, as its descriptions say.
    const viewed = detail.participants.find((p) => p.id === 'p2')!.connections.flatMap((c) => c.media ?? []);
    expect(viewed.map((m) => m.direction)).toEqual(['recvonly', 'recvonly', 'recvonly', 'recvonly']);
    expect(diagnosis.issues.filter((i) => i.connectionId === p0.find((c) => c.key === 'probe')!.id)).toEqual([]);

    const page = await browser.newPage();
    await openWithKey(page, server.url, keys.apiKey);
    await expect(page.getByTestId(`call-row-${result.callId}`).getByTestId('verdict')).toHaveText(verdict, { timeout: 15_000 });
    expect(await cutPlaceholders(page)).toEqual([]);
    await page.goto(`${server.url}/calls/${result.callId}`);
    await expect(page.getByTestId('call-verdict')).toHaveText(verdict);
    await expect(page.getByTestId('data-connection')).toHaveText([/^p0’s probe: .*never connected$/]);

    // Insights count the call under its verdict (after its summary and its day's rollup are written),
    // among the lab's runs: production's live traffic has none.
    const shares = async (source: string) =>
      (await api<Insights>(`/insights?from=${Date.now() - 7 * 86_400_000}&source=${source}`)).segments[0]?.verdicts;
    await expect.poll(() => shares('lab'), { timeout: 90_000 }).toMatchObject({ [verdict]: 1 });
    expect(await shares('live')).toBeUndefined();
    await page.goto(`${server.url}/insights`);
    await page.getByLabel('Calls from').selectOption('lab');
    await expect(page.getByTestId('insights-verdicts').first()).toHaveText(verdict === 'fair' ? '0 % / 100 %' : '0 % / 0 %');
    expect(await cutPlaceholders(page)).toEqual([]);

    // Alerts agree: the not-good rule paged nothing of a good call (the sentinel shows its rounds judged the
    // call while it ran), at most once of a fair one.
    const notifications = async () => (await api<NotificationList>('/alerts/notifications')).notifications;
    await expect.poll(async () => (await notifications()).some((n) => n.rule.id === sentinel.id), { timeout: 30_000 }).toBe(true);
    const paged = (await notifications()).filter((n) => n.rule.id === notGood.id && n.state === 'firing').length;
    if (verdict === 'good') expect(paged).toBe(0);
    else expect(paged).toBeLessThanOrEqual(1);
  } finally {
    await browser.close();
    await server.stop();
  }
});
