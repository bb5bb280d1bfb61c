import { describe, expect, it } from 'vitest';
import { formatBytes, shortIds } from './format.js';

describe('shortIds', () => {
  it('cuts track ids in an event detail and leaves words alone', () => {
    expect(shortIds('remote video 3f2a1b4c-9d8e-4f00-a1b2-c3d4e5f60718')).toBe('remote video 3f2a1b4c…');
    expect(shortIds('local audio {0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9}')).toBe('local audio 0a1b2c3d…');
    expect(shortIds('701 STUN host lookup received error.')).toBe('701 STUN host lookup received error.');
  });
});

describe('formatBytes', () => {
  it('says sizes in decimal units, one decimal below 10', () => {
    expect([512, 1_500, 48_000, 2_500_000, 200_000_000, 3e9].map(formatBytes)).toEqual(['512 B', '1.5 kB', '48 kB', '2.5 MB', '200 MB', '3.0 GB']);
  });
});
