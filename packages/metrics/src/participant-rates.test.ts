import { describe, expect, it } from 'vitest';
import { participantRates, type StreamOwner } from './participant-rates.js';

const owners: Record<number, StreamOwner> = {
  1: { participant: 'a', direction: 'out' },
  2: { participant: 'a', direction: 'out' },
  3: { participant: 'a', direction: 'in' },
  4: { participant: 'b', direction: 'out' },
};
const owner = (id: number) => owners[id];
const second = (ts: number) => Math.floor(ts / 1000) * 1000;

describe('participantRates', () => {
  it("sums a participant's streams per direction and interval", () => {
    const rates = participantRates(
      [
        { id: 1, ts: 1000, kbps: 900 },
        { id: 2, ts: 1100, kbps: 40 },
        { id: 3, ts: 1000, kbps: 1200 },
        { id: 4, ts: 1200, kbps: 700 },
        { id: 1, ts: 2000, kbps: 800 },
      ],
      owner,
      second,
    );
    expect(rates).toEqual([
      { ts: 1000, participant: 'a', direction: 'out', kbps: 940 },
      { ts: 1000, participant: 'a', direction: 'in', kbps: 1200 },
      { ts: 1000, participant: 'b', direction: 'out', kbps: 700 },
      { ts: 2000, participant: 'a', direction: 'out', kbps: 800 },
    ]);
  });

  it("takes two samples of one stream in one interval as its mean, not as two streams (no spike at a call's end)", () => {
    // A call's last sample often lands in the same second as the one before it.
    const rates = participantRates(
      [
        { id: 1, ts: 1904, kbps: 492 },
        { id: 1, ts: 1991, kbps: 550 },
        { id: 2, ts: 1500, kbps: 30 },
      ],
      owner,
      second,
    );
    expect(rates).toEqual([{ ts: 1000, participant: 'a', direction: 'out', kbps: 521 + 30 }]);
  });

  it('leaves out unknown rates and streams without an owner', () => {
    expect(
      participantRates(
        [
          { id: 1, ts: 0, kbps: null },
          { id: 9, ts: 0, kbps: 100 },
        ],
        owner,
        second,
      ),
    ).toEqual([]);
  });
});
