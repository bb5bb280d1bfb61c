import { describe, expect, it } from 'vitest';
import { AckQueue } from './queue.js';

describe('AckQueue', () => {
  it('removes exactly the acknowledged rows', () => {
    const q = new AckQueue<string>(10);
    q.push('a');
    q.push('b');
    const sent = q.peek(10);
    q.push('c');
    q.ackThrough(sent.lastId);
    expect(q.peek(10).items).toEqual(['c']);
    expect(q.acknowledged).toBe(2);
  });

  it('drops the oldest rows beyond capacity and counts them', () => {
    const q = new AckQueue<number>(3);
    for (let k = 0; k < 5; k++) q.push(k);
    expect(q.peek(10).items).toEqual([2, 3, 4]);
    expect(q.dropped).toBe(2);
  });

  it('keeps newer rows when overflow removed part of an in-flight batch', () => {
    const q = new AckQueue<number>(2);
    q.push(0);
    q.push(1);
    const sent = q.peek(2);
    q.push(2);
    q.push(3);
    q.ackThrough(sent.lastId);
    expect(q.peek(10).items).toEqual([2, 3]);
    // The dropped rows were never stored, though their batch's ack came.
    expect([q.acknowledged, q.dropped]).toEqual([0, 2]);
  });
});
