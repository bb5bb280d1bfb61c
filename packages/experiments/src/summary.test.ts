import type { CallDetail, Series } from '@rtcscope/protocol';
import { CONNECTION_FIELDS, STREAM_FIELDS, streamFieldIndex } from '@rtcscope/protocol';
import { findScenario } from '@rtcscope/scenario';
import { describe, expect, it } from 'vitest';
import { measureRun, summarizeRun } from './summary.js';
import type { RunResult } from './wire.js';

const scenario = findScenario('static-bw')!;
const startedAt = 1_790_000_000_000;
const run: RunResult = {
  callId: 'c',
  calls: [{ callId: 'c', joinedAt: 0, leftAt: 3 }],
  startedAt,
  endedAt: startedAt + 3000,
  applied: [],
  backend: 'relay',
};
const stream = (id: number, direction: 'in' | 'out', kind: 'audio' | 'video') => ({
  id,
  direction,
  kind,
  ssrc: id,
  rid: null,
  codec: null,
  implementation: null,
});
const participant = (id: string, streams: ReturnType<typeof stream>[]) => ({
  id,
  joinedAt: startedAt,
  leftAt: null,
  lastSeenAt: startedAt,
  metadata: {},
  connections: [
    {
      id: streams[0]!.id,
      key: 'pc1',
      session: 's',
      localCandidateType: null,
      localProtocol: null,
      remoteCandidateType: null,
      remoteProtocol: null,
      streams,
    },
  ],
});
const detail = {
  call: {} as CallDetail['call'],
  participants: [participant('p0', [stream(1, 'out', 'video'), stream(2, 'out', 'audio')]), participant('p1', [stream(3, 'in', 'video')])],
} as CallDetail;
const point = (id: number, at: number, kbps: number) => {
  const v: (number | null)[] = new Array<number | null>(STREAM_FIELDS.length).fill(null);
  v[streamFieldIndex('kbps')] = kbps;
  return { id, ts: startedAt + at, v };
};
const series: Series = {
  fields: STREAM_FIELDS.map((f) => f.name),
  connectionFields: CONNECTION_FIELDS.map((f) => f.name),
  from: startedAt,
  to: startedAt + 3000,
  bucketMs: 1000,
  // p0 sends video and audio each second; its last video sample lands in the same second as the one before.
  streams: [
    point(1, 0, 1000),
    point(2, 0, 40),
    point(1, 1000, 1200),
    point(2, 1000, 40),
    point(1, 2000, 900),
    point(1, 2300, 1100),
    point(2, 2000, 40),
    point(3, 1000, 1150),
  ],
  connections: [],
};

describe('run summaries', () => {
  it("take a participant's sending rate per second as its streams summed, one stream's samples in a second as their mean", () => {
    const [p0] = summarizeRun(run, scenario, detail, series).flows;
    // (1040 + 1240 + 1040) / 3: the second with two video samples counts 1000 for video, not 2000.
    expect(p0!.meanKbps).toBeCloseTo((1040 + 1240 + 1040) / 3, 6);
    // And what each received, the same way: p1 got video in one second, p0 nothing.
    const flows = summarizeRun(run, scenario, detail, series).flows;
    expect(flows.map((f) => f.meanReceivedKbps)).toEqual([null, 1150]);
  });

  it("give the call's means by the calls list's definitions, a flow's second by second, and utilization by what crossed the path", () => {
    const withLoss: Series = {
      ...series,
      streams: series.streams.map((p) => {
        const v = [...p.v];
        if (p.id === 3) v[streamFieldIndex('lossPct')] = 4;
        if (p.id === 1) v[streamFieldIndex('rttMs')] = 30;
        return { ...p, v };
      }),
    };
    const summary = summarizeRun(
      {
        ...run,
        applied: [
          { t: 0, link: 'p0-up', state: { rateKbps: 1000, delayMs: 0, jitterMs: 0, loss: { model: 'random', pct: 0 }, queueMs: null } },
        ],
      },
      scenario,
      detail,
      withLoss,
    );
    expect(summary.means).toEqual({ rttMs: 30, lossPct: 4, fps: null });
    const [p0] = summary.flows;
    expect(p0!.perSecond.map((s) => [s.t, s.kbps, s.receivedKbps])).toEqual([
      [0, 1040, null],
      [1, 1240, 1150],
      [2, 1040, null],
    ]);
    expect(p0!.phases).toHaveLength(1);
    expect(p0!.phases[0]).toMatchObject({ set: { capKbps: 1000 }, receivedKbps: 1150, utilization: 1 });
  });

  it("give each phase of a sender's path what its far end saw of the video: frame rate and width", () => {
    const video = (at: number, fps: number, width: number | null) => {
      const p = point(3, at, 1000);
      p.v[streamFieldIndex('fps')] = fps;
      p.v[streamFieldIndex('width')] = width;
      return p;
    };
    const seen: Series = { ...series, streams: [...series.streams, video(500, 30, 640), video(1500, 20, null)] };
    const [p0, p1] = summarizeRun(run, scenario, detail, seen).flows;
    expect(p0!.phases[0]).toMatchObject({ receivedFps: 25, receivedWidth: 640 });
    // p0 receives no video from p1.
    expect(p1!.phases[0]).toMatchObject({ receivedFps: null, receivedWidth: null });
  });

  it('measure a run from its calls as loaded, and say which call stored nothing', async () => {
    const outcome = await measureRun(run, scenario, async () => ({ detail, series }));
    expect(outcome.run.flows.map((f) => f.participant)).toEqual(['p0', 'p1']);
    expect(outcome.sharedBottleneck).toBeNull();
    await expect(measureRun(run, scenario, async () => null)).rejects.toThrow('call c of the run stored no samples');
    await expect(measureRun({ ...run, calls: [] }, scenario, async () => null)).rejects.toThrow('the run reported no calls');
  });
});
