import { expect, test } from '@playwright/test';
import type { CallDiagnosis, CallList } from '@rtcscope/protocol';
import { hangUp } from '@rtcscope/lab';
import { startPair } from '../support/pair.js';

test("a sender capped by its app's maxBitrate is told as the app's limit: information, not its CPU, and not a poor call", async () => {
  const callId = 'app-limit-call';
  const { server, keys, api, alice, bob, close } = await startPair('app-limit', callId);
  try {
    const diagnosis = () => api<Partial<CallDiagnosis>>(`/calls/${callId}/diagnosis`);
    await expect
      .poll(async () => ((await diagnosis()).scores?.participants.bob ?? []).length, { timeout: 40_000 })
      .toBeGreaterThanOrEqual(2);

    // As apps do to save bandwidth: alice's video sender held to 50 kbit/s.
    await alice.evaluate(async () => {
      const w = window as unknown as { lab: { pcs: Record<string, RTCPeerConnection> } };
      for (const pc of Object.values(w.lab.pcs))
        for (const sender of pc.getSenders()) {
          if (sender.track?.kind !== 'video') continue;
          const parameters = sender.getParameters();
          parameters.encodings[0]!.maxBitrate = 50_000;
          await sender.setParameters(parameters);
        }
    });
    const limit = async () => (await diagnosis()).issues?.find((i) => i.type === 'app-limit');
    await expect
      .poll(async () => (await limit())?.cause, { timeout: 30_000 })
      .toBe("alice's video is limited by the app to 50 kbit/s: its own sender settings");
    expect((await limit())!.severity).toBe('info');
    // Held there for 20 s more: judged all that time, neither her CPU nor the network is blamed.
    const since = (await limit())!.start;
    const series = async () =>
      (await (
        await fetch(`${server.url}/api/v1/calls/${callId}/series?fields=kbps`, { headers: { authorization: `Bearer ${keys.apiKey}` } })
      ).json()) as { streams: { ts: number }[] };
    await expect
      .poll(async () => (await series()).streams.filter((p) => p.ts > since + 20_000).length, { timeout: 40_000 })
      .toBeGreaterThan(0);
    const issues = (await diagnosis()).issues!;
    console.log(
      issues
        .map(
          (i) =>
            `${i.participantId} ${i.type} ${i.severity} at ${((i.start - since) / 1000).toFixed(1)} s of the limit${i.causeId === null ? '' : ` under #${i.causeId}`}`,
        )
        .join(', '),
    );
    // A loaded machine's call may start starved of CPU; what is judged is the time the app holds it.
    const types = issues.filter((i) => i.start >= since).map((i) => i.type);
    expect(types).not.toContain('cpu-limitation');
    expect(types).not.toContain('uplink-congestion');
    // What bob sees of it (a smaller, slower picture) sits under the app's limit.
    const limitId = (await limit())!.id;
    for (const i of issues.filter((i) => i.participantId === 'bob' && i.start >= since)) expect(i.causeId).toBe(limitId);
    const verdict = (await api<CallList>(`/calls?q=${callId}`)).calls.find((c) => c.id === callId)!.quality;
    expect(verdict).not.toBe('poor');
    await hangUp(alice);
    await hangUp(bob);
  } finally {
    await close();
  }
});
