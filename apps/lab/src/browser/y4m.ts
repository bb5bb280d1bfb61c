import { createWriteStream } from 'node:fs';

/**
 * Writes a YUV4MPEG2 clip for Chromium's fake camera: a moving pattern with some noise, so the encoder
 * has real work and the bitrate looks like a camera's, not like a still image's.
 */
export async function writeY4m(path: string, { width = 640, height = 360, fps = 30, seconds = 4 } = {}): Promise<void> {
  const out = createWriteStream(path);
  const write = (chunk: Buffer | string) => new Promise<void>((resolve) => (out.write(chunk) ? resolve() : out.once('drain', resolve)));
  await write(`YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`);
  const ySize = width * height;
  const cSize = (width / 2) * (height / 2);
  const frame = Buffer.alloc(ySize + 2 * cSize);
  let seed = 12345;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed & 15;
  };
  for (let f = 0; f < fps * seconds; f++) {
    const shift = f * 4;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const box = Math.abs(x - ((shift * 3) % width)) < 60 && Math.abs(y - height / 2) < 60;
        frame[y * width + x] = box ? 235 : (((x + shift) >> 3) ^ (y >> 3)) & 1 ? 180 + noise() : 60 + noise();
      }
    }
    for (let k = 0; k < cSize; k++) {
      frame[ySize + k] = 128 + ((k + f) % 32) - 16;
      frame[ySize + cSize + k] = 128 - ((k >> 4) % 32) + 16;
    }
    await write(`FRAME\n`);
    await write(frame);
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}
