import { describe, expect, it } from 'vitest';
import { BinaryArray, binaryArray } from './binary-array.js';

describe('binaryArray', () => {
  it('writes the header array_recv reads: one dimension, the null flag, the element type, length and lower bound', () => {
    const b = binaryArray('int4', [7, null, -1]);
    expect([0, 4, 8, 12, 16].map((at) => b.readInt32BE(at))).toEqual([1, 1, 23, 3, 1]);
    // Each element: its byte length, then its bytes; a NULL is length -1 and no bytes.
    expect([20, 24, 28, 32, 36].map((at) => b.readInt32BE(at))).toEqual([4, 7, -1, 4, -1]);
    expect(b.length).toBe(40);
  });

  it('splits an int8 into its high and low words, also past 32 bits and below zero', () => {
    const b = binaryArray('int8', [2 ** 40 + 3, -2]);
    expect(b.readInt32BE(4)).toBe(0);
    expect(b.readBigInt64BE(24)).toBe(2n ** 40n + 3n);
    expect(b.readBigInt64BE(36)).toBe(-2n);
  });

  it('ends after the last element pushed, when fewer came than it had room for', () => {
    const a = new BinaryArray('bool', 10);
    a.push(true);
    const b = a.toBuffer();
    expect(b.readInt32BE(12)).toBe(1);
    expect(b.length).toBe(20 + 4 + 1);
    expect(b[24]).toBe(1);
  });
});
