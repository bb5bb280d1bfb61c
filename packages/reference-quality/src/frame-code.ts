/**
 * A frame's number drawn in its picture, so a received frame can be matched to the one sent: a row of
 * black and white blocks in the top-left corner, 9 bits and an even-parity bit, each block a
 * 1/18 of the picture's height square. Sized to the height, it reads the same after the encoder scales
 * the picture down (a 640×360 source is sent as 320×180 on a tight link: the blocks are then 10 px).
 */
export const FRAME_CODE_BITS = 9;
/** Numbers run 0 to this − 1, then wrap: a clip longer than this many frames repeats its numbers. */
export const FRAME_CODE_PERIOD = 1 << FRAME_CODE_BITS;
const BLOCKS = FRAME_CODE_BITS + 1;
const HEIGHTS_PER_BLOCK = 18;
const [DARK, LIGHT] = [16, 235];

const blockSize = (height: number) => height / HEIGHTS_PER_BLOCK;

/** How much of a picture's top-left corner the code takes, in pixels of a picture of this height. */
export function frameCodeArea(height: number): { width: number; height: number } {
  const b = blockSize(height);
  return { width: Math.ceil(BLOCKS * b), height: Math.ceil(b) };
}

const bitsOf = (n: number) => {
  const bits = Array.from({ length: FRAME_CODE_BITS }, (_, k) => (n >> k) & 1);
  return [...bits, bits.reduce((a, b) => a ^ b, 0)];
};

/** Draws `n` (taken modulo the period) into a luma plane of `width`×`height`, row by row. */
export function stampFrameNumber(luma: Uint8Array, width: number, height: number, n: number): void {
  const b = blockSize(height);
  for (const [k, bit] of bitsOf(n % FRAME_CODE_PERIOD).entries()) {
    for (let y = 0; y < Math.ceil(b); y++)
      for (let x = Math.round(k * b); x < Math.round((k + 1) * b); x++) luma[y * width + x] = bit ? LIGHT : DARK;
  }
}

/**
 * The number in a luma plane's code (of `stride` bytes a row; only the code's rows need be there), or
 * null where the code does not read (its parity fails, or a block is neither dark nor light: a picture
 * torn by loss, or no code at all). Each block is read from its middle half, clear of the edges the codec blurs.
 */
export function readFrameNumber(luma: Uint8Array, stride: number, height: number): number | null {
  const b = blockSize(height);
  const bits: number[] = [];
  for (let k = 0; k < BLOCKS; k++) {
    const [x0, x1] = [Math.floor(k * b + b / 4), Math.ceil((k + 1) * b - b / 4)];
    const [y0, y1] = [Math.floor(b / 4), Math.ceil((3 * b) / 4)];
    let sum = 0;
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) sum += luma[y * stride + x]!;
    const level = sum / ((x1 - x0) * (y1 - y0));
    if (level > 90 && level < 160) return null;
    bits.push(level >= 160 ? 1 : 0);
  }
  if (bits.reduce((a, v) => a ^ v, 0) !== 0) return null;
  return bits.slice(0, FRAME_CODE_BITS).reduce((n, bit, k) => n | (bit << k), 0);
}
