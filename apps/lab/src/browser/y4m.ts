import { createWriteStream, openSync, readSync, closeSync } from 'node:fs';

export interface Y4mFormat {
  width: number;
  height: number;
  fps: number;
}

/** A YUV 4:2:0 frame's planes, one after another in one buffer (Y, then U, then V). */
export type DrawFrame = (frame: Buffer, index: number) => void;

const header = ({ width, height, fps }: Y4mFormat) => `YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`;
const frameBytes = ({ width, height }: Y4mFormat) => width * height + 2 * (width / 2) * (height / 2);
const FRAME_MARK = 'FRAME\n';

/** Writes a YUV4MPEG2 clip of `frames` frames, each drawn by `draw` (Chromium's fake camera plays it in a loop). */
export async function writeY4mFrames(path: string, format: Y4mFormat, frames: number, draw: DrawFrame): Promise<void> {
  const out = createWriteStream(path);
  const write = (chunk: Buffer | string) => new Promise<void>((resolve) => (out.write(chunk) ? resolve() : out.once('drain', resolve)));
  await write(header(format));
  for (let f = 0; f < frames; f++) {
    const frame = Buffer.alloc(frameBytes(format));
    draw(frame, f);
    await write(FRAME_MARK);
    await write(frame);
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Frame `index`'s luma plane of a clip `writeY4mFrames` wrote in `format`. */
export function readY4mLuma(path: string, format: Y4mFormat, index: number): Uint8Array {
  const luma = new Uint8Array(format.width * format.height);
  const fd = openSync(path, 'r');
  try {
    const at = header(format).length + index * (FRAME_MARK.length + frameBytes(format)) + FRAME_MARK.length;
    if (readSync(fd, luma, 0, luma.length, at) !== luma.length) throw new Error(`${path} has no frame ${index}`);
  } finally {
    closeSync(fd);
  }
  return luma;
}

/**
 * Writes a clip for Chromium's fake camera: a moving pattern with some noise, so the encoder has real
 * work and the bitrate looks like a camera's, not like a still image's.
 */
export function writeY4m(path: string, { width = 640, height = 360, fps = 30, seconds = 4 } = {}): Promise<void> {
  const ySize = width * height;
  const cSize = (width / 2) * (height / 2);
  let seed = 12345;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed & 15;
  };
  return writeY4mFrames(path, { width, height, fps }, fps * seconds, (frame, f) => {
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
  });
}
