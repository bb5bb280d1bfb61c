import { describe, expect, it } from 'vitest';
import { PSNR_MAX_DB, psnr, resizeLuma, ssim } from './luma.js';

const [W, H] = [64, 48];
const gradient = () => Uint8Array.from({ length: W * H }, (_, k) => ((k % W) * 3 + Math.floor(k / W) * 2) % 256);
const blurred = (y: Uint8Array) =>
  Uint8Array.from(y, (_, k) => {
    const x = k % W;
    const [l, r] = [y[k - (x > 0 ? 1 : 0)]!, y[k + (x < W - 1 ? 1 : 0)]!];
    return Math.round((l + 2 * y[k]! + r) / 4);
  });

describe('luma measures', () => {
  it('give the same picture their best, and a damaged one less the more it is damaged', () => {
    const ref = gradient();
    expect(psnr(ref, ref)).toBe(PSNR_MAX_DB);
    expect(ssim(ref, ref, W, H)).toBeCloseTo(1, 12);
    const once = blurred(ref);
    const twice = blurred(blurred(blurred(once)));
    expect(psnr(ref, twice)).toBeLessThan(psnr(ref, once));
    expect(ssim(ref, twice, W, H)).toBeLessThan(ssim(ref, once, W, H));
    expect(ssim(ref, once, W, H)).toBeLessThan(1);
  });

  it('give PSNR as worked by hand: every pixel off by 16 → 10·log10(255²/256) dB', () => {
    const ref = new Uint8Array(W * H).fill(100);
    expect(psnr(ref, new Uint8Array(W * H).fill(116))).toBeCloseTo(10 * Math.log10((255 * 255) / 256), 10);
  });

  it('scale a flat picture to the same flat picture, and keep a ramp a ramp', () => {
    expect(resizeLuma(new Uint8Array(32 * 18).fill(77), 32, 18, 64, 36).every((v) => v === 77)).toBe(true);
    const ramp = Uint8Array.from({ length: 8 }, (_, x) => x * 30);
    const wide = resizeLuma(ramp, 8, 1, 16, 1);
    for (let x = 1; x < 16; x++) expect(wide[x]!).toBeGreaterThanOrEqual(wide[x - 1]!);
  });

  it('refuse planes of different sizes', () => {
    expect(() => psnr(new Uint8Array(4), new Uint8Array(5))).toThrow('4 pixels against 5');
    expect(() => ssim(new Uint8Array(4), new Uint8Array(4), W, H)).toThrow(`planes are not ${W}×${H}`);
  });
});
