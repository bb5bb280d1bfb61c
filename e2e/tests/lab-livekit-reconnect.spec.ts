import { expect, test } from '@playwright/test';
import { postLiveKitEvents, runScenario } from '@rtcscope/lab';
import type { CallDetail, CallDiagnosis, CallEvents, Series } from '@rtcscope/protocol';
import { parseScenario } from '@rtcscope/scenario';
import { apiReader, startProduct } from '../support/product.js';

const RESUME_S = 10;
const REJOIN_S = 20;
const END_S = 40;

test("LiveKit's reconnections under the SDK's adapter: a resume (ICE restarted on the same connection) and a full reconnect (a new connection, every track published again) lose no sample and store none twice, the new tracks are tied to their publisher again, the old copies end, and nothing is raised", async () => {
  const { server, keys } = await startProduct('lab-livekit-reconnect', { CALL_IDLE_TIMEOUT_S: '60' });
  try {
    const checked = parseScenario({
      id: 'livekit-reconnect',
      title: 'Two through LiveKit: p1 resumes, then p0 reconnects in full',
      participants: { count: 2, topology: 'sfu', sfu: 'livekit', codec: 'VP8', video: { width: 640, height: 360, fps: 15 } },
      links: { mode: 'per-participant', uplink: {}, downlink: {} },
      actions: [
        { at: RESUME_S, participant: 1, do: 'reconnect' },
        { at: REJOIN_S, participant: 0, do: 'rejoin' },
      ],
      durationS: END_S,
    });
    if (!checked.ok) throw new Error(`${checked.error.field}: ${checked.error.message}`);
    const scenario = checked.value;
    const run = await runScenario({
      server: server.url,
      ingestKey: keys.ingestKey,
      scenario,
      runId: 'e2e',
      repetition: 1,
      liveKitEvents: postLiveKitEvents(server.url, keys.apiKey),
    });
    const get = apiReader({ server, keys });
    const detail = await get<CallDetail>(`/calls/${run.callId}`);
    const series = await get<Series>(`/calls/${run.callId}/series?maxPoints=10000`);
    const { events } = await get<CallEvents>(`/calls/${run.callId}/events`);
    const seconds = (ts: number) => ((ts - run.startedAt) / 1000).toFixed(1);
    const participant = (id: string) => detail.participants.find((p) => p.id === id)!;
    for (const p of detail.participants)
      for (const c of p.connections)
        for (const s of c.streams)
          console.log(
            `${p.id} connection ${c.key} ${s.direction} ${s.kind} ${s.trackId}${s.rid ? ` rid ${s.rid}` : ''}${s.from ? ` from ${s.from}` : ''}: ${s.state}`,
          );

    // Every row each SDK monitor was told the server stored is stored once, and none was dropped or left behind.
    expect(series.bucketMs).toBe(1000);
    for (const p of detail.participants) {
      const connections = new Set(p.connections.map((c) => c.id));
      const streams = new Set(p.connections.flatMap((c) => c.streams.map((s) => s.id)));
      const stored =
        series.streams.filter((pt) => streams.has(pt.id)).length + series.connections.filter((pt) => connections.has(pt.id)).length;
      expect(run.samples?.find((t) => t.participant === p.id)).toEqual({
        participant: p.id,
        storedRows: stored,
        droppedRows: 0,
        pendingRows: 0,
      });
      for (const id of streams) {
        const times = series.streams.filter((pt) => pt.id === id).map((pt) => pt.ts);
        expect(new Set(times).size, `stream ${id} has two samples at one time`).toBe(times.length);
      }
    }

    // The resume: p1 keeps its one connection, whose ICE gathers again after it, and samples every second
    // throughout (no round missing: each sample of its connection within 2.5 s of the one before).
    const p1 = participant('p1');
    expect(p1.connections).toHaveLength(1);
    const p1Connection = p1.connections[0]!;
    const regathered = events.filter(
      (e) =>
        e.connectionId === p1Connection.id &&
        e.type === 'ice-gathering-state' &&
        e.detail === 'gathering' &&
        e.ts > run.startedAt + RESUME_S * 1000,
    );
    expect(regathered.map((e) => seconds(e.ts))).not.toEqual([]);
    const p1Times = series.connections.filter((pt) => pt.id === p1Connection.id).map((pt) => pt.ts);
    const gaps = p1Times.slice(1).map((t, k) => t - p1Times[k]!);
    expect(Math.max(...gaps), `p1's samples at ${p1Times.map(seconds).join(', ')} s`).toBeLessThan(2500);

    // The full reconnect: p0 goes on a second connection from the moment the first closed, its tracks
    // published again under new SIDs; p1's copies of the new tracks are tied to them, and its copies of
    // the old ones have ended.
    const p0 = participant('p0');
    expect(p0.connections).toHaveLength(2);
    const [before, after] = p0.connections;
    const times = (c: typeof before) => series.connections.filter((pt) => pt.id === c!.id).map((pt) => pt.ts);
    const handover = times(after)[0]! - times(before).at(-1)!;
    console.log(
      `p0's last sample on its first connection at ${seconds(times(before).at(-1)!)} s, first on its second at ${seconds(times(after)[0]!)} s`,
    );
    expect(handover).toBeGreaterThan(0);
    expect(handover).toBeLessThan(2500);
    const sent = (c: typeof before) => new Set(c!.streams.filter((s) => s.direction === 'out').map((s) => s.trackId));
    const [oldTracks, newTracks] = [sent(before), sent(after)];
    expect([...oldTracks].filter((t) => newTracks.has(t))).toEqual([]);
    const copies = p1Connection.streams.filter((s) => s.direction === 'in');
    expect(
      copies
        .filter((s) => newTracks.has(s.trackId))
        .map((s) => `${s.kind} from ${s.from}: ${s.state}`)
        .sort(),
    ).toEqual(['audio from p0: active', 'video from p0: active']);
    expect(
      copies
        .filter((s) => oldTracks.has(s.trackId))
        .map((s) => `${s.kind} from ${s.from}: ${s.state}`)
        .sort(),
    ).toEqual(['audio from p0: ended', 'video from p0: ended']);
    expect(before!.streams.map((s) => s.state)).toEqual(before!.streams.map(() => 'ended'));

    // Neither reconnection is a fault: the media was back within a second or two, and what ended with the
    // old connection (p0's, and p1's copies of its tracks) raises nothing.
    const diagnosis = await get<CallDiagnosis>(`/calls/${run.callId}/diagnosis`);
    const raised = diagnosis.issues.filter((i) => i.severity !== 'info');
    expect(raised.map((i) => `${i.participantId} ${i.type} ${i.severity} at ${seconds(i.start)} s: ${i.cause}`)).toEqual([]);
  } finally {
    await server.stop();
  }
});
