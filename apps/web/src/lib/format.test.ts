import { describe, expect, it } from 'vitest';
import { formatBytes, shortIds, timeTicks } from './format.js';

describe('shortIds', () => {
  it('cuts track ids in an event detail and leaves words alone', () => {
    expect(shortIds('remote video 3f2a1b4c-9d8e-4f00-a1b2-c3d4e5f60718')).toBe('remote video 3f2a1b4c…');
    expect(shortIds('local audio {0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9}')).toBe('local audio 0a1b2c3d…');
    expect(shortIds('701 STUN host lookup received error.')).toBe('701 STUN host lookup received error.');
  });
});

describe('formatBytes', () => {
  it('says sizes in decimal units, one decimal below 10', () => {
    expect([512, 1_500, 48_000, 2_500_000, 200_000_000, 3e9].map(formatBytes)).toEqual([
      '512 B',
      '1.5 kB',
      '48 kB',
      '2.5 MB',
      '200 MB',
      '3.0 GB',
    ]);
  });
});

describe('timeTicks', () => {
  it('puts at most seven ticks on round times inside the domain', () => {
    const from = Date.UTC(2026, 10, 27, 23, 8, 7, 300);
    expect(timeTicks([from, from + 90_000]).map((t) => new Date(t).toISOString().slice(11, 19))).toEqual([
      '23:08:15',
      '23:08:30',
      '23:08:45',
      '23:09:00',
      '23:09:15',
      '23:09:30',
    ]);
    const hour = timeTicks([from, from + 3_600_000]);
    expect(hour.length).toBeLessThanOrEqual(7);
    expect(hour.every((t) => t % 600_000 === 0 && t >= from && t <= from + 3_600_000)).toBe(true);
  });

  it('gives the same ticks for the same domain, and some for a call of a second', () => {
    const d: [number, number] = [1_800_000_000_000, 1_800_000_000_900];
    expect(timeTicks(d)).toEqual(timeTicks([...d]));
    expect(timeTicks([1_800_000_000_000, 1_800_000_001_000])).toEqual([1_800_000_000_000, 1_800_000_001_000]);
  });
});
