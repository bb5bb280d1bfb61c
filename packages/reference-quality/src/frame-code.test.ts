import { describe, expect, it } from 'vitest';
import { FRAME_CODE_PERIOD, frameCodeArea, readFrameNumber, stampFrameNumber } from './frame-code.js';
import { resizeLuma } from './luma.js';

/** A busy picture: a code must read over detail, not only over a flat grey. */
function picture(width: number, height: number, seed: number): Uint8Array {
  const y = new Uint8Array(width * height);
  for (let k = 0; k < y.length; k++) y[k] = (((k * 2654435761 + seed) >>> 0) % 200) + 28;
  return y;
}

describe('frame code', () => {
  it('reads back every number of its period at the size drawn', () => {
    const [w, h] = [640, 360];
    const y = picture(w, h, 1);
    for (let n = 0; n < FRAME_CODE_PERIOD; n++) {
      stampFrameNumber(y, w, h, n);
      expect(readFrameNumber(y, w, h)).toBe(n);
    }
  });

  it('reads after the picture is scaled down as an encoder on a tight link does (to a half and a quarter)', () => {
    const [w, h] = [640, 360];
    for (const n of [0, 1, 137, 299, 511]) {
      const y = picture(w, h, n);
      stampFrameNumber(y, w, h, n);
      for (const [dw, dh] of [
        [320, 180],
        [160, 90],
      ] as const)
        expect(readFrameNumber(resizeLuma(y, w, h, dw, dh), dw, dh)).toBe(n);
    }
  });

  it('reads from the code strip alone, a row stride wider than the strip', () => {
    const [w, h] = [1280, 720];
    const y = picture(w, h, 3);
    stampFrameNumber(y, w, h, 300);
    const area = frameCodeArea(h);
    expect(area.height).toBe(40);
    expect(readFrameNumber(y.subarray(0, area.height * w), w, h)).toBe(300);
  });

  it('says null, not a wrong number, for a picture without a code or with a torn one', () => {
    const [w, h] = [640, 360];
    expect(readFrameNumber(new Uint8Array(w * h).fill(128), w, h)).toBeNull();
    const y = picture(w, h, 4);
    stampFrameNumber(y, w, h, 5);
    // One block flipped (bit 1 of 5 is 0): the parity no longer holds.
    for (let r = 0; r < 20; r++) for (let x = 20; x < 40; x++) y[r * w + x] = 235;
    expect(readFrameNumber(y, w, h)).toBeNull();
  });
});
