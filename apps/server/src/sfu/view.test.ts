import { describe, expect, it } from 'vitest';
import { readJanusEvents, type SfuEventRow } from './janus-events.js';
import { recorded } from './janus-events.test.js';
import { sfuView } from './view.js';

const byDisplay = (_room: string, _feed: string, display: string | null) => display;

describe('sfuView', () => {
  it("draws a real room of three: each member's feed, tracks, whom it received and its two connections", () => {
    const view = sfuView(readJanusEvents(recorded), byDisplay)!;
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
    expect(sfuView([], byDisplay)).toBeNull();
  });
});
