import type { CallDetail, StreamInfo } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { routesOf } from './routes.js';

const client = { browser: null, browserVersion: null, os: null, deviceType: null, sdkVersion: null, country: null };
let id = 0;
const stream = (s: Partial<StreamInfo> & Pick<StreamInfo, 'direction' | 'kind'>): StreamInfo => ({
  id: ++id,
  ssrc: id,
  rid: null,
  trackId: null,
  from: null,
  codec: null,
  implementation: null,
  contentType: null,
  outOfRange: 0,
  state: 'active' as const,
  activeFrom: null,
  activeUntil: null,
  ...s,
});
const participant = (pid: string, streams: StreamInfo[]) => ({
  id: pid,
  joinedAt: 0,
  leftAt: null,
  lastSeenAt: 0,
  metadata: {},
  client,
  connections: [
    {
      id: ++id,
      key: 'pc',
      session: 's',
      localCandidateType: null,
      localProtocol: null,
      remoteCandidateType: null,
      remoteProtocol: null,
      media: null,
      streams,
    },
  ],
});
const detail = (participants: CallDetail['participants']): CallDetail => ({
  sfu: null,
  call: {
    id: 'c',
    state: 'live',
    startedAt: 0,
    endedAt: null,
    lastSeenAt: 0,
    participants: participants.map((p) => p.id),
    quality: 'good',
    meanRttMs: null,
    meanLossPct: null,
    meanFps: null,
    metadata: {},
    score: null,
    issues: [],
  },
  participants,
});

describe('routesOf', () => {
  it("gathers a LiveKit publisher's three simulcast layers under its track, with both subscribers' copies", () => {
    const routes = routesOf(
      detail([
        participant('alice', [
          stream({ direction: 'out', kind: 'video', rid: 'q', trackId: 'livekit:TR_v' }),
          stream({ direction: 'out', kind: 'video', rid: 'h', trackId: 'livekit:TR_v' }),
          stream({ direction: 'out', kind: 'video', rid: 'f', trackId: 'livekit:TR_v' }),
          stream({ direction: 'out', kind: 'audio', trackId: 'livekit:TR_a' }),
        ]),
        participant('bob', [stream({ direction: 'in', kind: 'video', trackId: 'livekit:TR_v', from: 'alice' })]),
        participant('carol', [
          stream({ direction: 'in', kind: 'video', trackId: 'livekit:TR_v', from: 'alice' }),
          stream({ direction: 'in', kind: 'audio', trackId: 'livekit:TR_a', from: 'alice' }),
        ]),
      ]),
    );
    expect(routes.map((r) => [r.sender, r.kind, r.layers, r.receivers])).toEqual([
      ['alice', 'video', ['q', 'h', 'f'], ['bob', 'carol']],
      ['alice', 'audio', [], ['carol']],
    ]);
  });

  it("puts a copy matched by SSRC (peer to peer, no track id) under its sender's track, and leaves out tracks nobody received", () => {
    const routes = routesOf(
      detail([
        participant('a', [stream({ direction: 'out', kind: 'video' }), stream({ direction: 'out', kind: 'audio' })]),
        participant('b', [stream({ direction: 'in', kind: 'video', from: 'a' }), stream({ direction: 'in', kind: 'video', from: null })]),
      ]),
    );
    expect(routes.map((r) => [r.sender, r.kind, r.receivers])).toEqual([['a', 'video', ['b']]]);
  });

  it('lists receivers by id, whichever joined first', () => {
    const routes = routesOf(
      detail([
        participant('p0', [stream({ direction: 'out', kind: 'video', trackId: 'janus:1:1:1' })]),
        participant('p10', [stream({ direction: 'in', kind: 'video', trackId: 'janus:1:1:1', from: 'p0' })]),
        participant('p2', [stream({ direction: 'in', kind: 'video', trackId: 'janus:1:1:1', from: 'p0' })]),
        participant('p1', [stream({ direction: 'in', kind: 'video', trackId: 'janus:1:1:1', from: 'p0' })]),
      ]),
    );
    expect(routes.map((r) => r.receivers)).toEqual([['p1', 'p2', 'p10']]);
  });
});
