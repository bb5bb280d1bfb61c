import { expect, test } from '@playwright/test';
import type { CallDetail, CallDiagnosis, CallEvents, CallList } from '@rtcscope/protocol';
import { hangUp } from '@rtcscope/lab';
import { startPair } from '../support/pair.js';

test("the far side's pc.close(), with no goodbye from its SDK: the other side raises nothing and the verdict stays as it was", async () => {
  const callId = 'hang-up-call';
  const { server, keys, api, alice, bob, close } = await startPair('hang-up', callId);
  try {
    // Scored and judged for a while first: the verdict of a clean call.
    // (The call is not there before its first batch: a 404, no scores.)
    const diagnosis = () => api<Partial<CallDiagnosis>>(`/calls/${callId}/diagnosis`);
    const bobsWindows = async () => (await diagnosis()).scores?.participants.bob ?? [];
    await expect.poll(async () => (await bobsWindows()).length, { timeout: 40_000 }).toBeGreaterThanOrEqual(3);
    const verdict = async () => (await api<CallList>(`/calls?q=${callId}`)).calls.find((c) => c.id === callId)?.quality;
    const before = await verdict();
    expect(before).toBe('good');

    // alice's page closes its connection as an app's hang-up button does, its SDK saying nothing.
    await alice.evaluate(() => {
      const w = window as unknown as { lab: { pcs: Record<string, RTCPeerConnection> } };
      for (const pc of Object.values(w.lab.pcs)) pc.close();
    });
    // The sentinel that the hang-up was seen where it matters: bob's own stats said his DTLS closed.
    const events = () => api<CallEvents>(`/calls/${callId}/events`);
    await expect
      .poll(async () => (await events()).events.filter((e) => e.type === 'dtls-state').map((e) => [e.participantId, e.detail]), {
        timeout: 15_000,
      })
      .toEqual([['bob', 'closed']]);
    // And bob's samples for seconds after it are stored (his monitor still runs): the silence was judged, and raised nothing.
    const hungUpAt = (await events()).events.find((e) => e.type === 'dtls-state')!.ts;
    const series = async () =>
      (await (
        await fetch(`${server.url}/api/v1/calls/${callId}/series?fields=kbps`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
      ).json()) as {
        streams: { ts: number }[];
      };
    await expect
      .poll(async () => (await series()).streams.filter((p) => p.ts > hungUpAt + 4000).length, { timeout: 15_000 })
      .toBeGreaterThan(0);
    const after = (await diagnosis()).issues!;
    console.log(`verdict ${before}; after the hang-up: ${after.map((i) => `${i.participantId} ${i.type}`).join(', ') || 'no issue'}`);
    expect(after).toEqual([]);
    expect(await verdict()).toBe(before);
    // What bob received on the connection alice hung up has ended: not an outage, not a pause.
    const detail = await api<CallDetail>(`/calls/${callId}`);
    const received = detail.participants
      .find((p) => p.id === 'bob')!
      .connections.flatMap((c) => c.streams.filter((s) => s.direction === 'in'));
    expect(received.map((s) => s.state)).toEqual(received.map(() => 'ended'));
    await hangUp(bob);
  } finally {
    await close();
  }
});
