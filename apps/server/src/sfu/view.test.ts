import { describe, expect, it } from 'vitest';
import { readJanusEvents, type SfuEventRow } from './janus-events.js';
import { readLiveKitEvents } from './livekit-events.js';
import { recorded } from './janus-events.test.js';
import { sfuView } from './view.js';

const byDisplay = (_room: string, _feed: string, display: string | null) => display;

describe('sfuView', () => {
  it("draws a real room of three: each member's feed, tracks, whom it received and its two connections", () => {
    const view = sfuView('janus', readJanusEvents(recorded), byDisplay)!;
    expect(view.members.map((m) => [m.feed, m.display, m.participantId, m.subscribedTo])).toEqual([
      ['1', 'p0', 'p0', ['2', '3']],
      ['2', 'p1', 'p1', ['1', '3']],
      ['3', 'p2', 'p2', ['1', '2']],
    ]);
    for (const m of view.members) {
      expect(m.published.map((t) => `${t.kind} ${t.codec}`)).toEqual(['audio opus', 'video vp8']);
      expect(m.leftAt! - m.joinedAt!).toBeGreaterThan(60_000);
      expect(m.connections.map((c) => c.role)).toEqual(['publisher', 'subscriber']);
      for (const c of m.connections) {
        expect(c.upAt! - m.joinedAt!).toBeGreaterThanOrEqual(0);
        expect(c.downAt! - c.upAt!).toBeGreaterThan(60_000);
        expect(c.reason).toBe('DTLS alert');
      }
    }
  });

  it('shows a member no participant reported, and one that only watched', () => {
    const row = (r: Partial<SfuEventRow> & Pick<SfuEventRow, 'kind'>): SfuEventRow => ({
      room: '9',
      session: 's',
      handle: 'h',
      atUs: 1e15,
      feed: '',
      detail: {},
      ...r,
    });
    const view = sfuView(
      'janus',
      [
        row({ kind: 'joined', feed: '1', session: 'a', handle: 'a1', detail: { display: 'alice' } }),
        row({ kind: 'joined', feed: '2', session: 'b', handle: 'b1', detail: { display: 'bob' } }),
        row({ kind: 'subscribing', session: 'v', handle: 'v1', atUs: 2e15, detail: { feeds: ['1', '2'] } }),
        row({ kind: 'ice-failed', room: null, session: 'b', handle: 'b1', atUs: 3e15 }),
      ],
      (_room, feed) => (feed === '1' ? 'p0' : null),
    )!;
    expect(view.members.map((m) => [m.feed, m.display, m.participantId, m.subscribedTo])).toEqual([
      ['1', 'alice', 'p0', []],
      ['2', 'bob', null, []],
      [null, null, null, ['1', '2']],
    ]);
    expect(view.members[1]!.connections).toEqual([{ role: 'publisher', upAt: null, downAt: 3e12, reason: 'ICE failed' }]);
  });

  it('is null for a room the SFU reported nothing of', () => {
    expect(sfuView('janus', [], byDisplay)).toBeNull();
  });

  it("draws a LiveKit room from its webhooks as LiveKit posts them: each member's identity, every track it published (a leaver's are unpublished), when it left", () => {
    // protobuf's JSON, as LiveKit 1.9 posts it: int64s as strings, enums by name.
    const at = (s: number) => String(1_764_000_000 + s);
    const participant = (identity: string, sid: string) => ({ sid, identity, name: '', state: 'ACTIVE' });
    const room = { sid: 'RM_x', name: 'livekit-e2e-e2e-r1' };
    // An audio track has no type: AUDIO is protobuf's default, which its JSON leaves out (as LiveKit posted it in the lab's e2e).
    const track = (sid: string, type: string, mimeType: string) =>
      type === 'AUDIO' ? { sid, mimeType, source: 'MICROPHONE' } : { sid, type, mimeType, source: 'CAMERA' };
    const rows = readLiveKitEvents([
      { event: 'room_started', id: 'EV_0', createdAt: at(0), room },
      { event: 'participant_joined', id: 'EV_1', createdAt: at(1), room, participant: participant('p0', 'PA_a') },
      {
        event: 'track_published',
        id: 'EV_2',
        createdAt: at(2),
        room,
        participant: participant('p0', 'PA_a'),
        track: track('TR_mic', 'AUDIO', 'audio/red'),
      },
      {
        event: 'track_published',
        id: 'EV_3',
        createdAt: at(2),
        room,
        participant: participant('p0', 'PA_a'),
        track: track('TR_cam', 'VIDEO', 'video/VP8'),
      },
      { event: 'participant_joined', id: 'EV_4', createdAt: at(3), room, participant: participant('alice@example.com', 'PA_b') },
      {
        event: 'track_unpublished',
        id: 'EV_5',
        createdAt: at(9),
        room,
        participant: participant('p0', 'PA_a'),
        track: track('TR_cam', 'VIDEO', 'video/VP8'),
      },
      { event: 'participant_left', id: 'EV_6', createdAt: at(10), room, participant: participant('p0', 'PA_a') },
    ]);
    expect(rows.map((r) => [r.room, r.kind, r.feed, r.handle])).toEqual([
      ['livekit-e2e-e2e-r1', 'room-started', '', ''],
      ['livekit-e2e-e2e-r1', 'joined', 'p0', ''],
      ['livekit-e2e-e2e-r1', 'published', 'p0', 'TR_mic'],
      ['livekit-e2e-e2e-r1', 'published', 'p0', 'TR_cam'],
      ['livekit-e2e-e2e-r1', 'joined', 'alice@example.com', ''],
      ['livekit-e2e-e2e-r1', 'unpublished', 'p0', 'TR_cam'],
      ['livekit-e2e-e2e-r1', 'left', 'p0', ''],
    ]);
    const view = sfuView('livekit', rows, (_room, identity) => (identity === 'p0' ? 'p0' : null))!;
    expect(view.sfu).toBe('livekit');
    expect(view.members.map((m) => [m.feed, m.participantId, m.published.map((t) => `${t.kind} ${t.codec}`), m.leftAt])).toEqual([
      ['p0', 'p0', ['audio audio/red', 'video video/VP8'], (1_764_000_000 + 10) * 1000],
      ['alice@example.com', null, [], null],
    ]);
    expect(view.members[0]!.connections).toEqual([]);
  });
});
