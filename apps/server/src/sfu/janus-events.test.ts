import { readFileSync } from 'node:fs';
import type { JanusEvent } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { readJanusEvents } from './janus-events.js';

/**
 * What Janus 1.1 (Debian's) posted through its sample event handler during a lab call of three (p2 in
 * Firefox) through its VideoRoom: every session, handle, plugin and connection event, and one of each
 * ICE/DTLS kind the view leaves out (addresses replaced by documentation ones).
 */
export const recorded = JSON.parse(readFileSync(new URL('./janus-events.fixture.json', import.meta.url), 'utf8')) as JanusEvent[];

describe('readJanusEvents', () => {
  it("keeps a real room's joins, publications, subscriptions, departures and connections, and nothing else", () => {
    const rows = readJanusEvents(recorded);
    const count = (kind: string) => rows.filter((r) => r.kind === kind).length;
    expect(
      Object.fromEntries(
        ['joined', 'published', 'subscribing', 'updated', 'unpublished', 'left', 'up', 'hangup', 'ice-failed'].map((k) => [k, count(k)]),
      ),
    ).toEqual({
      joined: 3,
      published: 3,
      subscribing: 3,
      updated: 2,
      unpublished: 6,
      left: 3,
      up: 6,
      hangup: 6,
      'ice-failed': 0,
    });
    expect(rows).toHaveLength(32);
    const p1 = rows.find((r) => r.kind === 'published' && r.feed === '2')!;
    expect(p1).toMatchObject({
      room: '126893971856',
      detail: {
        display: 'p1',
        streams: [
          { mid: '0', kind: 'audio', codec: 'opus' },
          { mid: '1', kind: 'video', codec: 'vp8' },
        ],
      },
    });
    expect(p1.session).toMatch(/^\d+$/);
    expect(p1.atUs).toBeGreaterThan(1.7e15);
    expect(rows.filter((r) => r.kind === 'subscribing').map((r) => r.detail.feeds)).toEqual([
      ['2', '3'],
      ['1', '3'],
      ['1', '2'],
    ]);
    expect(
      rows.filter((r) => r.kind === 'hangup').every((r) => r.room === null && r.handle !== '' && r.detail.reason === 'DTLS alert'),
    ).toBe(true);
  });

  it("reads an updated subscription's inactive streams as gone, and ICE failing as a connection's end", () => {
    const at = { timestamp: 1_800_000_000_000_000, session_id: 5, handle_id: 6 };
    const rows = readJanusEvents([
      {
        ...at,
        type: 64,
        event: {
          plugin: 'janus.plugin.videoroom',
          data: { event: 'updated', room: 'lobby', streams: [{ feed_id: 1, active: true }, { feed_id: 2, active: false }, { mid: '3' }] },
        },
      },
      { ...at, type: 16, event: { ice: 'failed', stream_id: 1 } },
    ]);
    expect(rows.map((r) => [r.kind, r.room, r.detail])).toEqual([
      ['updated', 'lobby', { feeds: ['1'] }],
      ['ice-failed', null, {}],
    ]);
  });

  it("leaves out other plugins' events, a room's events that name no room, and cuts what a client named at 200 characters", () => {
    const at = { timestamp: 1, session_id: 1, handle_id: 2 };
    const rows = readJanusEvents([
      { ...at, type: 64, event: { plugin: 'janus.plugin.echotest', data: { event: 'joined', room: 1 } } },
      { ...at, type: 64, event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', id: 1 } } },
      { ...at, type: 64, event: { plugin: 'janus.plugin.videoroom', data: 'joined' } },
      {
        ...at,
        type: 64,
        event: { plugin: 'janus.plugin.videoroom', data: { event: 'joined', room: 1, id: 1, display: 'x'.repeat(5000) } },
      },
      { timestamp: 1, type: 16, event: { connection: 'webrtcup' } },
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.detail.display).toHaveLength(200);
  });
});
