import { describe, expect, it } from 'vitest';
import { carriesMedia, isSilent, type StreamFacts, streamStates } from './life.js';

const at = (s: number) => 1_800_000_000_000 + s * 1000;
const stream = (id: number, over: Partial<StreamFacts>): StreamFacts => ({
  id,
  participant: 'p1',
  connection: 1,
  direction: 'in',
  firstActiveAt: at(0),
  lastActiveAt: at(60),
  lastSaidAt: at(60),
  intervalMs: 1000,
  connectionEndedAt: null,
  ...over,
});

describe('streamStates', () => {
  it('takes a stream that never carried media, or never said what came, as never active', () => {
    const states = streamStates([
      stream(1, {}),
      stream(2, { firstActiveAt: null, lastActiveAt: null }),
      stream(3, { firstActiveAt: null, lastActiveAt: null, lastSaidAt: null }),
    ]);
    expect([...states]).toEqual([
      [1, 'active'],
      [2, 'never-active'],
      [3, 'never-active'],
    ]);
  });

  it('takes a stream silent beside its participant’s active ones as paused, and one silent with all of them as active (an outage the issues tell)', () => {
    expect(streamStates([stream(1, {}), stream(2, { lastActiveAt: at(30) })]).get(2)).toBe('paused');
    expect(streamStates([stream(1, { lastActiveAt: at(30) }), stream(2, { lastActiveAt: at(30) })]).get(2)).toBe('active');
    // Another participant's streams say nothing of this one's.
    expect(streamStates([stream(1, { participant: 'p2' }), stream(2, { lastActiveAt: at(30) })]).get(2)).toBe('active');
  });

  it('reads a 10-s recording’s last silent sample as of the same moment as its neighbour’s', () => {
    const slow = { intervalMs: 10_000 };
    expect(streamStates([stream(1, slow), stream(2, { ...slow, lastActiveAt: at(50) })]).get(2)).toBe('active');
    expect(streamStates([stream(1, slow), stream(2, { ...slow, lastActiveAt: at(40) })]).get(2)).toBe('paused');
  });

  it('takes a stream that reports no more while its call goes on as ended', () => {
    // On a connection of its own, so that its call's samples tell, not its connection's.
    const states = streamStates([stream(1, {}), stream(2, { connection: 2, lastActiveAt: at(40), lastSaidAt: at(44) })]);
    expect(states.get(2)).toBe('ended');
    expect(streamStates([stream(1, {}), stream(2, { connection: 2, lastSaidAt: at(50), lastActiveAt: at(50) })]).get(2)).toBe('active');
  });

  it('takes a stream its connection reports no more while the connection goes on as ended, sooner than the call would tell', () => {
    // A LiveKit subscriber whose publisher joined again on a new connection: the old copies are removed at
    // 23 s and the call ends 13 s later.
    const removed = { lastActiveAt: at(23), lastSaidAt: at(23) };
    const call = (connection: number) => [stream(1, { lastSaidAt: at(36), lastActiveAt: at(36) }), stream(2, { ...removed, connection })];
    expect(streamStates(call(1)).get(2)).toBe('ended');
    // Alone on its connection (another connection's streams go on), it is the call's rule that tells.
    expect(streamStates(call(2)).get(2)).toBe('active');
    // A sample or two late is not a removal.
    expect(streamStates([stream(1, { lastSaidAt: at(36) }), stream(2, { lastActiveAt: at(33), lastSaidAt: at(33) })]).get(2)).toBe(
      'active',
    );
  });
});

describe('a stream whose connection ended', () => {
  it('has ended when it carried nothing since, even while its browser still reports it', () => {
    const silent = { lastActiveAt: at(40), lastSaidAt: at(60) };
    expect(streamStates([stream(2, { ...silent, connectionEndedAt: at(40.5) })]).get(2)).toBe('ended');
    // Media after the event: the connection came back (a new one under the same key).
    expect(streamStates([stream(2, { connectionEndedAt: at(30) })]).get(2)).toBe('active');
  });
});

describe('what a sample carried', () => {
  it('counts payload or frames as media, padding’s packets not', () => {
    expect(carriesMedia(0, 0)).toBe(false);
    expect(carriesMedia(null, 12)).toBe(true);
    expect(carriesMedia(0.4, null)).toBe(true);
    expect(isSilent(0.4, 50)).toBe(true);
    expect(isSilent(null, 0)).toBe(true);
    expect(isSilent(null, null)).toBe(false);
  });
});
