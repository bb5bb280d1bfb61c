import { type CallDetail, CONNECTION_FIELDS, type Series, STREAM_FIELDS, streamFieldIndex } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { labSetsOf } from '@rtcscope/experiments';
import {
  applyLive,
  callSummary,
  fairnessChart,
  fromApi,
  participantColors,
  rateChart,
  rttChart,
  streamChart,
  streamStatesOf,
  unscorableVideo,
  withSet,
} from './calldata.js';

const stream = (id: number, direction: 'in' | 'out', kind: 'audio' | 'video') => ({
  id,
  direction,
  kind,
  ssrc: id,
  rid: null,
  trackId: null,
  from: null as string | null,
  codec: null,
  implementation: null,
  contentType: null,
  outOfRange: 0,
  state: 'active' as const,
  activeFrom: null,
  activeUntil: null,
});
const conn = (id: number, streams: ReturnType<typeof stream>[]) => ({
  id,
  key: 'pc1',
  session: 's',
  localCandidateType: null,
  localProtocol: null,
  remoteCandidateType: null,
  remoteProtocol: null,
  media: null,
  streams,
});
const client = { browser: null, browserVersion: null, os: null, deviceType: null, sdkVersion: null, country: null };
const detail: CallDetail = {
  sfu: null,
  call: {
    id: 'c',
    state: 'live',
    startedAt: 0,
    endedAt: null,
    lastSeenAt: 0,
    participants: ['a', 'b'],
    quality: 'good',
    meanRttMs: null,
    meanLossPct: null,
    meanFps: null,
    metadata: {},
    score: null,
    issues: [],
  },
  participants: [
    {
      id: 'a',
      joinedAt: 0,
      leftAt: null,
      lastSeenAt: 0,
      metadata: {},
      client,
      connections: [conn(1, [stream(10, 'out', 'video'), stream(11, 'out', 'audio')])],
    },
    { id: 'b', joinedAt: 0, leftAt: null, lastSeenAt: 0, metadata: {}, client, connections: [conn(2, [stream(20, 'out', 'video')])] },
  ],
};
const series: Series = {
  fields: STREAM_FIELDS.map((f) => f.name),
  connectionFields: CONNECTION_FIELDS.map((f) => f.name),
  from: 0,
  to: 2000,
  bucketMs: 1000,
  streams: [
    { id: 10, ts: 1003, v: [900, 0, 0, 0, 0, 0, 30] },
    { id: 11, ts: 1003, v: [100] },
    { id: 20, ts: 998, v: [1000, 0, 0, 0, 0, 0, 25] },
  ],
  connections: [],
};

describe('call page data', () => {
  it('puts the fields the API sent where every field would be', () => {
    const data = fromApi(detail, { ...series, fields: ['fps', 'kbps'], streams: [{ id: 10, ts: 1003, v: [29, 800] }] }, []);
    const v = data.streamPoints.get(10)![0]!.v;
    expect(v).toHaveLength(STREAM_FIELDS.length);
    expect([v[streamFieldIndex('kbps')], v[streamFieldIndex('fps')], v[1]]).toEqual([800, 29, null]);
  });

  it("sums a participant's streams per direction, aligned to the sampling interval", () => {
    const chart = rateChart(fromApi(detail, series, []));
    expect(chart.rows).toEqual([{ ts: 1000, 'a ↑': 1000, 'b ↑': 1000 }]);
    expect(chart.series.map((s) => s.key)).toEqual(['a ↑', 'b ↑']);
  });

  it('draws one line per stream for per-stream metrics', () => {
    const chart = streamChart(fromApi(detail, series, []), 'fps', (s) => s.kind === 'video');
    expect(chart.rows).toEqual([{ ts: 1000, 'a ↑ video': 30, 'b ↑ video': 25 }]);
  });

  it('greys a stream that never carried media, and one that paused beside its participant’s active one', () => {
    const k = streamFieldIndex('kbps');
    const f = streamFieldIndex('fps');
    const v = (kbps: number, fps: number | null) => {
      const row: (number | null)[] = new Array<number | null>(STREAM_FIELDS.length).fill(null);
      [row[k], row[f]] = [kbps, fps];
      return row;
    };
    const seconds = Array.from({ length: 20 }, (_, s) => 1000 * (s + 1));
    const data = fromApi(
      detail,
      {
        ...series,
        to: 21_000,
        streams: seconds.flatMap((ts, s) => [
          { id: 10, ts, v: v(900, 30) },
          { id: 11, ts, v: v(s < 10 ? 40 : 0, null) },
          { id: 20, ts, v: v(0, 0) },
        ]),
      },
      [],
    );
    const states = streamStatesOf(data);
    expect([...states].map(([id, life]) => [id, life.state])).toEqual([
      [10, 'active'],
      [11, 'paused'],
      [20, 'never-active'],
    ]);
    expect(states.get(11)!.lastActiveAt).toBe(10_000);
    const chart = streamChart(data, 'kbps', () => true, states);
    expect(chart.series.map((s) => [s.key, s.state])).toEqual([
      ['a ↑ audio', 'paused'],
      ['a ↑ video', undefined],
      ['b ↑ video', 'never-active'],
    ]);
  });

  it('names a received video no score can judge by the fields its browser never reported', () => {
    const received: CallDetail = {
      ...detail,
      participants: [{ ...detail.participants[1]!, connections: [conn(2, [stream(40, 'in', 'video'), stream(41, 'in', 'video')])] }],
    };
    const k = streamFieldIndex('kbps');
    const points = [1000, 2000, 3000].flatMap((ts) => [
      { id: 40, ts, v: Object.assign(new Array<number | null>(STREAM_FIELDS.length).fill(null), { [k]: 300 }) },
      {
        id: 41,
        ts,
        v: Object.assign(new Array<number | null>(STREAM_FIELDS.length).fill(null), { [k]: 300, [streamFieldIndex('fps')]: 25 }),
      },
    ]);
    const data = fromApi(received, { ...series, streams: points }, []);
    expect([...unscorableVideo(data, streamStatesOf(data))]).toEqual([
      [40, ['frame rate', 'frame size']],
      [41, ['frame size']],
    ]);
  });

  it("computes Jain's index over participants from the same points", () => {
    expect(fairnessChart(fromApi(detail, series, [])).rows).toEqual([{ ts: 1000, 'J sending': 1, 'J receiving': null }]);
  });

  it("names a subscriber's received streams by who sends them (an SFU call), and by SSRC where no sender is known", () => {
    const received = (id: number, from: string | null) => ({ ...stream(id, 'in', 'video'), from });
    const sfu = fromApi(
      {
        ...detail,
        participants: [
          { ...detail.participants[0]!, id: 'c', connections: [conn(3, [received(30, 'a'), received(31, 'b'), received(32, null)])] },
        ],
      },
      series,
      [],
    );
    expect([30, 31, 32].map((id) => sfu.streams.get(id)?.label)).toEqual(['c ↓ video from a', 'c ↓ video from b', 'c ↓ video 32']);
  });

  it('appends live points once, labels new streams, and ignores a repeated point', () => {
    const data = fromApi(detail, series, []);
    const push = {
      callId: 'c',
      participantId: 'b',
      streams: [{ id: 21, ts: 2001, v: [64] }],
      connections: [],
      newStreams: [{ ...stream(21, 'out', 'audio'), connectionId: 2 }],
      newConnections: [],
      events: [],
    };
    expect(applyLive(data, push)).toBe(true);
    expect(applyLive(data, { ...push, newStreams: [] })).toBe(true);
    expect(applyLive(data, { ...push, newStreams: [], streams: [{ id: 99, ts: 3000, v: [1] }] })).toBe(false);
    expect(data.streamPoints.get(21)).toHaveLength(1);
    expect(data.streams.get(21)?.label).toBe('b ↑ audio');
    expect(rateChart(data).rows.at(-1)).toEqual({ ts: 2000, 'b ↑': 64 });
  });
});

describe('chart lines', () => {
  it("never adds one stream's two points in one interval as if they were two streams", () => {
    // The last two samples of a call, 0.29 s apart, fall in one second: their mean, not their sum.
    const data = fromApi(
      detail,
      {
        ...series,
        streams: [
          { id: 10, ts: 1904, v: [492] },
          { id: 10, ts: 2191, v: [550] },
        ],
      },
      [],
    );
    expect(rateChart(data).rows).toEqual([{ ts: 2000, 'a ↑': 521 }]);
  });

  it('draws a line across a late sample, and ends it where a stream paused or stopped instead of joining the two sides', () => {
    const at = (ts: number, fps: number) => ({ id: 10, ts, v: [900, 0, 0, 0, 0, 0, fps] });
    const beside = (ts: number) => ({ id: 20, ts, v: [1000, 0, 0, 0, 0, 0, 25] });
    const points = [at(1000, 30), at(2000, 30), at(5000, 24), ...[3000, 4000, 9000, 10_000].map(beside), at(10_000, 12)];
    const rows = streamChart(fromApi(detail, { ...series, to: 10_000, streams: points }, []), 'fps', (s) => s.kind === 'video').rows;
    const line = Object.fromEntries(rows.map((r) => [r.ts, r['a ↑ video'] ?? null]));
    // 2 → 5 s: three intervals, drawn across; 5 → 10 s: paused, nothing drawn in between.
    expect(line).toEqual({ 1000: 30, 2000: 30, 3000: 28, 4000: 26, 5000: 24, 9000: null, 10000: 12 });
  });

  it('gives each participant one colour in every panel, kept as others join', () => {
    const data = fromApi(detail, series, []);
    const before = participantColors(data.participants);
    expect(before.get('a')).not.toBe(before.get('b'));
    applyLive(data, { callId: 'c', participantId: 'carol', streams: [], connections: [], newStreams: [], newConnections: [], events: [] });
    const after = participantColors(data.participants);
    expect([after.get('a'), after.get('b')]).toEqual([before.get('a'), before.get('b')]);
    expect(new Set(after.values()).size).toBe(3);
  });

  it('tells direction, kind and candidate pair apart by line, not by colour', () => {
    const data = fromApi(detail, { ...series, connections: [{ id: 1, ts: 1000, v: [12] }] }, []);
    const kinds = Object.fromEntries(rttChart(data).series.map((s) => [s.key, [s.participantId, s.line]]));
    expect(kinds).toEqual({ 'a (pair)': ['a', 'pair'], 'a ↑ video': ['a', 'sent'], 'b ↑ video': ['b', 'sent'] });
    expect(streamChart(data, 'kbps', () => true).series.find((s) => s.key === 'a ↑ audio')?.line).toBe('sent audio');
    expect(fairnessChart(data).series.map((s) => s.line)).toEqual(['sent', 'received']);
  });
});

describe('call summary', () => {
  it("gives each participant's means and worst values by the calls list's definitions", () => {
    const v = (kbps: number, rttMs: number | null) => {
      const out: (number | null)[] = new Array<number | null>(STREAM_FIELDS.length).fill(null);
      out[streamFieldIndex('kbps')] = kbps;
      out[streamFieldIndex('rttMs')] = rttMs;
      return out;
    };
    const data = fromApi(
      detail,
      {
        ...series,
        streams: [
          { id: 10, ts: 1000, v: v(800, 20) },
          { id: 10, ts: 2000, v: v(600, 60) },
          { id: 11, ts: 1000, v: v(50, 40) },
        ],
      },
      [],
    );
    const [a, b] = callSummary(data);
    expect(a).toMatchObject({
      participantId: 'a',
      sentKbps: { mean: (850 + 600) / 2, min: 600 },
      rttMs: { mean: 40, max: 60 },
      fps: { mean: null, min: null },
    });
    expect(b).toMatchObject({ participantId: 'b', sentKbps: { mean: null } });
  });
});

describe('lab set lines', () => {
  const mark = (ts: number, link: string, rateKbps: number | null) => ({
    ts,
    participantId: 'a',
    connectionId: null,
    type: 'metadata',
    detail: JSON.stringify({ labSet: JSON.stringify({ link, rateKbps, delayMs: 10, lossPct: 0 }) }),
  });

  it('reads the marks a lab run left and draws the value in effect at each row', () => {
    const data = fromApi(
      detail,
      { ...series, streams: [...series.streams, { id: 10, ts: 2000, v: [500] }, { id: 10, ts: 3000, v: [700] }] },
      [
        mark(1500, 'p0-up', 500),
        mark(2500, 'p0-up', null),
        { ts: 1600, participantId: 'a', connectionId: null, type: 'metadata', detail: '{"room":"x"}' },
      ],
    );
    const sets = labSetsOf(data.events);
    expect(sets.map((s) => [s.ts, s.rateKbps])).toEqual([
      [1500, 500],
      [2500, null],
    ]);
    const chart = withSet(rateChart(data), sets, (s) => s.rateKbps, 'cap');
    expect(chart.rows.map((r) => r['set cap p0-up'])).toEqual([null, 500, null]);
    expect(chart.series.map((s) => s.key)).toContain('set cap p0-up');
  });
});
