import { frameCodeArea, stampFrameNumber } from '@rtcscope/reference-quality';
import { writeY4mFrames, type Y4mFormat } from '../browser/y4m.js';

/**
 * What a known source shows. `talking`: a person on camera, a head and shoulders before a plain wall,
 * swaying a little, blinking and talking, with a sensor's noise; `busy`: a harder picture, a camera
 * panning over fine detail while things cross it fast.
 */
export const CLIP_CONTENTS = ['talking', 'busy'] as const;
export type ClipContent = (typeof CLIP_CONTENTS)[number];

export interface NumberedClip extends Y4mFormat {
  path: string;
  content: ClipContent;
  /** Frames in the clip; the camera repeats it. */
  frames: number;
}

/** A seeded generator, so a content is the same picture on every machine. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Smooth detail: random values on a grid of `cell` pixels, blended between grid points. */
function texture(width: number, height: number, cell: number, amplitude: number, seed: number): Float32Array {
  const rnd = random(seed);
  const [gw, gh] = [Math.ceil(width / cell) + 2, Math.ceil(height / cell) + 2];
  const grid = Float32Array.from({ length: gw * gh }, () => (rnd() * 2 - 1) * amplitude);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const [gy, fy] = [Math.floor(y / cell), (y % cell) / cell];
    for (let x = 0; x < width; x++) {
      const [gx, fx] = [Math.floor(x / cell), (x % cell) / cell];
      const at = (i: number, j: number) => grid[(gy + j) * gw + gx + i]!;
      out[y * width + x] = (at(0, 0) * (1 - fx) + at(1, 0) * fx) * (1 - fy) + (at(0, 1) * (1 - fx) + at(1, 1) * fx) * fy;
    }
  }
  return out;
}

const clamp = (v: number) => (v < 16 ? 16 : v > 235 ? 235 : Math.round(v));

function drawTalking({ width: W, height: H }: Y4mFormat): (frame: Buffer, f: number) => void {
  const wall = texture(W, H, 24, 6, 1);
  const skin = texture(W, H, 3, 7, 2);
  const cloth = texture(W, H, 6, 10, 3);
  const noise = random(4);
  const [cw, ch] = [W / 2, H / 2];
  return (frame, f) => {
    const cx = W / 2 + 0.03 * W * Math.sin((2 * Math.PI * f) / 150);
    const cy = 0.42 * H + 0.012 * H * Math.sin((2 * Math.PI * f) / 75);
    const [rx, ry] = [0.125 * W, 0.26 * H];
    const blink = f % 90 < 4;
    // Speech: the mouth opens and closes four times a second in phrases, with pauses between them.
    const talking = f % 100 < 70;
    const mouth = talking ? 0.035 * H * Math.abs(Math.sin((2 * Math.PI * f) / 8)) : 0.004 * H;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const k = y * W + x;
        const [dx, dy] = [(x - cx) / rx, (y - cy) / ry];
        const r2 = dx * dx + dy * dy;
        const shoulders = y > 0.7 * H + 0.18 * H * ((x - cx) / (0.6 * W)) ** 2 && Math.abs(x - cx) < 0.42 * W;
        let v: number;
        if (r2 <= 1) {
          const hx = Math.round(x - cx + W / 2);
          const hy = Math.round(y - cy + H / 2);
          const at = Math.max(0, Math.min(W * H - 1, hy * W + hx));
          if (dy < -0.55 + 0.15 * dx * dx) v = 45 + skin[at]!;
          else {
            v = 175 - 55 * r2 + skin[at]!;
            const eye = (ex: number) =>
              ((x - ex) / (0.022 * W)) ** 2 + ((y - (cy - 0.12 * ry)) / (blink ? 0.003 * H : 0.014 * H)) ** 2 <= 1;
            if (eye(cx - 0.36 * rx) || eye(cx + 0.36 * rx)) v = 35;
            if (((x - cx) / (0.06 * W)) ** 2 + ((y - (cy + 0.45 * ry)) / Math.max(1, mouth)) ** 2 <= 1) v = 55;
          }
        } else if (shoulders) v = 60 + cloth[k]!;
        else v = 80 + (30 * y) / H + wall[k]!;
        frame[k] = clamp(v + (noise() - 0.5) * 6);
      }
    }
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const [dx, dy] = [(2 * x - cx) / rx, (2 * y - cy) / ry];
        const face = dx * dx + dy * dy <= 1;
        const shirt = 2 * y > 0.7 * H + 0.18 * H * ((2 * x - cx) / (0.6 * W)) ** 2 && Math.abs(2 * x - cx) < 0.42 * W;
        frame[W * H + y * cw + x] = face ? 112 : shirt ? 150 : 124;
        frame[W * H + cw * ch + y * cw + x] = face ? 150 : shirt ? 112 : 132;
      }
    }
  };
}

function drawBusy({ width: W, height: H }: Y4mFormat, frames: number): (frame: Buffer, f: number) => void {
  // A scene three pictures wide, panned across once per clip so the clip loops without a seam.
  const [SW, SH] = [3 * W, H + 64];
  const fine = texture(SW, SH, 2, 40, 5);
  const coarse = texture(SW, SH, 20, 45, 6);
  const noise = random(7);
  const rnd = random(8);
  const movers = Array.from({ length: 12 }, () => ({
    r: 0.03 * H + rnd() * 0.06 * H,
    a: rnd() * 6.3,
    b: rnd() * 6.3,
    v: 40 + rnd() * 180,
  }));
  const [cw, ch] = [W / 2, H / 2];
  return (frame, f) => {
    const px = Math.round((f * SW) / frames) % SW;
    const py = Math.round(32 + 30 * Math.sin((2 * Math.PI * f) / frames));
    const at = movers.map((m, k) => ({
      x: W / 2 + 0.45 * W * Math.sin((2 * Math.PI * (k + 1) * f) / frames + m.a),
      y: H / 2 + 0.42 * H * Math.sin((2 * Math.PI * (k + 2) * f) / frames + m.b),
      ...m,
    }));
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const s = ((y + py) % SH) * SW + ((x + px) % SW);
        let v = 125 + fine[s]! + coarse[s]! + (((x + px) >> 4) & 1 ? 12 : -12);
        for (const m of at) if ((x - m.x) ** 2 + (y - m.y) ** 2 <= m.r * m.r) v = m.v;
        frame[y * W + x] = clamp(v + (noise() - 0.5) * 8);
      }
    }
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const s = ((2 * y + py) % SH) * SW + ((2 * x + px) % SW);
        frame[W * H + y * cw + x] = clamp(128 + coarse[s]! * 0.8);
        frame[W * H + cw * ch + y * cw + x] = clamp(128 - fine[s]! * 0.5);
      }
    }
  };
}

/**
 * Writes a clip of known content whose every frame carries its number (see the reference-quality
 * package's frame code), for the fake camera of a call whose received pictures are then compared with it.
 */
export async function writeNumberedClip(
  path: string,
  content: ClipContent,
  { width = 640, height = 360, fps = 30, seconds = 10 }: Partial<Y4mFormat> & { seconds?: number } = {},
): Promise<NumberedClip> {
  const format = { width, height, fps };
  const frames = fps * seconds;
  const draw = content === 'talking' ? drawTalking(format) : drawBusy(format, frames);
  await writeY4mFrames(path, format, frames, (frame, f) => {
    draw(frame, f);
    stampFrameNumber(frame, width, height, f);
    // The code's corner without colour, so the blocks read the same in any content.
    const code = frameCodeArea(height);
    const [cw, ch] = [width / 2, height / 2];
    for (let y = 0; y < Math.ceil(code.height / 2); y++)
      for (let x = 0; x < Math.ceil(code.width / 2); x++)
        frame[width * height + y * cw + x] = frame[width * height + cw * ch + y * cw + x] = 128;
  });
  return { path, content, frames, ...format };
}
