/** Full-reference measures of one luma plane against another of the same size (8-bit, row by row). */

/** Bilinear scaling of a luma plane, as a player draws a smaller picture at the size it shows. */
export function resizeLuma(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): Uint8Array {
  if (sw === dw && sh === dh) return src;
  const out = new Uint8Array(dw * dh);
  const [fx, fy] = [sw / dw, sh / dh];
  for (let y = 0; y < dh; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const wy = sy - y0;
    for (let x = 0; x < dw; x++) {
      const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(sw - 1, x0 + 1);
      const wx = sx - x0;
      const top = src[y0 * sw + x0]! * (1 - wx) + src[y0 * sw + x1]! * wx;
      const bottom = src[y1 * sw + x0]! * (1 - wx) + src[y1 * sw + x1]! * wx;
      out[y * dw + x] = Math.round(top * (1 - wy) + bottom * wy);
    }
  }
  return out;
}

/** The most PSNR says: two identical pictures (no error at all) read as this, not infinity. */
export const PSNR_MAX_DB = 100;

/** Peak signal-to-noise ratio, dB. */
export function psnr(ref: Uint8Array, dist: Uint8Array): number {
  if (ref.length !== dist.length) throw new Error(`psnr: ${ref.length} pixels against ${dist.length}`);
  let se = 0;
  for (let k = 0; k < ref.length; k++) se += (ref[k]! - dist[k]!) ** 2;
  return se === 0 ? PSNR_MAX_DB : Math.min(PSNR_MAX_DB, 10 * Math.log10((255 * 255 * ref.length) / se));
}

const [C1, C2] = [(0.01 * 255) ** 2, (0.03 * 255) ** 2];

/**
 * Structural similarity (Wang et al. 2004) over 8×8 windows 4 pixels apart, the variant x264 and ffmpeg's
 * `ssim` filter compute: 1 for the same picture, lower as structure, contrast or brightness differ.
 */
export function ssim(ref: Uint8Array, dist: Uint8Array, width: number, height: number): number {
  if (ref.length !== width * height || dist.length !== width * height) throw new Error(`ssim: planes are not ${width}×${height}`);
  let total = 0;
  let windows = 0;
  for (let y0 = 0; y0 + 8 <= height; y0 += 4) {
    for (let x0 = 0; x0 + 8 <= width; x0 += 4) {
      let [sa, sb, saa, sbb, sab] = [0, 0, 0, 0, 0];
      for (let y = y0; y < y0 + 8; y++) {
        for (let x = x0; x < x0 + 8; x++) {
          const [a, b] = [ref[y * width + x]!, dist[y * width + x]!];
          sa += a;
          sb += b;
          saa += a * a;
          sbb += b * b;
          sab += a * b;
        }
      }
      const [ma, mb] = [sa / 64, sb / 64];
      const [va, vb, cov] = [saa / 64 - ma * ma, sbb / 64 - mb * mb, sab / 64 - ma * mb];
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      windows++;
    }
  }
  return total / windows;
}
