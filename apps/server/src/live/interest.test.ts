import type { Namespace } from 'socket.io';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANNOUNCE_EVERY_MS, RoomInterest } from './interest.js';

/** The parts of a socket.io namespace RoomInterest uses: its rooms, and server-side events between nodes. */
function fakeNamespace() {
  const handlers = new Map<string, (...args: unknown[]) => void>();
  const sent: { event: string; args: unknown[] }[] = [];
  const rooms = new Map<string, Set<string>>();
  const ns = {
    adapter: { rooms },
    on: (event: string, handler: (...args: unknown[]) => void) => handlers.set(event, handler),
    serverSideEmit: (event: string, ...args: unknown[]) => sent.push({ event, args }),
    serverSideEmitWithAck: async (event: string, ...args: unknown[]) => {
      sent.push({ event, args });
      return [true];
    },
  };
  /** Another node's message arriving here. */
  const hear = (event: string, ...args: unknown[]) => handlers.get(event)?.(...args);
  return { ns: ns as unknown as Namespace, sent, rooms, hear };
}

describe('RoomInterest', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('watches a room with a local member, and nothing else, on a single node', async () => {
    const { ns, sent, rooms } = fakeNamespace();
    const interest = new RoomInterest(ns, false);
    rooms.set('p:a:call:x', new Set(['socket1']));
    await interest.joined('p:a:call:x');
    expect(interest.watched('p:a:call:x')).toBe(true);
    expect(interest.watched('p:a:call:y')).toBe(false);
    vi.advanceTimersByTime(5 * ANNOUNCE_EVERY_MS);
    expect(sent).toEqual([]);
    interest.close();
  });

  it('tells the other nodes about a subscription and believes theirs for a minute', async () => {
    const { ns, sent, hear } = fakeNamespace();
    const interest = new RoomInterest(ns, true);
    await interest.joined('p:a:call:x');
    expect(sent).toContainEqual({ event: 'watching', args: [['p:a:call:x']] });

    const ack = vi.fn();
    hear('watching', ['p:b:call:y'], ack);
    expect(ack).toHaveBeenCalledWith(true);
    expect(interest.watched('p:b:call:y')).toBe(true);
    vi.advanceTimersByTime(3 * ANNOUNCE_EVERY_MS + 1);
    expect(interest.watched('p:b:call:y')).toBe(false);
    interest.close();
  });

  it('announces its watched rooms every round and answers a starting node at once', () => {
    const { ns, sent, rooms, hear } = fakeNamespace();
    const interest = new RoomInterest(ns, true);
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([{ event: 'who-watches', args: [] }]);
    rooms.set('p:a:calls', new Set(['socket1']));
    rooms.set('p:a:call:gone', new Set());
    rooms.set('socket1', new Set(['socket1']));
    vi.advanceTimersByTime(ANNOUNCE_EVERY_MS);
    expect(sent.at(-1)).toEqual({ event: 'watching', args: [['p:a:calls']] });
    hear('who-watches');
    expect(sent.at(-1)).toEqual({ event: 'watching', args: [['p:a:calls']] });
    expect(sent).toHaveLength(3);
    interest.close();
  });
});
