import { describe, expect, it } from 'vitest';
import { newestWins } from './newest.js';

describe('newestWins', () => {
  it('keeps only the call begun last current, whatever order they finish in', () => {
    const begin = newestWins();
    const first = begin();
    expect(first()).toBe(true);
    const second = begin();
    expect(first()).toBe(false);
    expect(second()).toBe(true);
  });

  it('keeps the loaders of different pages apart', () => {
    const a = newestWins()();
    newestWins()();
    expect(a()).toBe(true);
  });
});
