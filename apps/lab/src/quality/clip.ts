import { frameCodeArea, stampFrameNumber } from '@rtcscope/reference-quality';
import { writeY4mFrames, type Y4mFormat } from '../browser/y4m.js';

/**
 * What a known source shows. `talking`: a person on camera, a head and shoulders before a plain wall,
 * swaying a little, blinking and talking, with a sensor's noise; `busy`: a harder picture, a camera
 * panning over fine detail while things cross it fast; `screen`: a shared page of text scrolling under a
 * fixed toolbar, sharp glyphs on white that blur at once when coded coarsely; `lowlight`: the talking
 * head in a dim room, a third of the light and a webcam's heavy noise in brightness and colour, which
 * costs an encoder bits that show nothing.
 */
export const CLIP_CONTENTS = ['talking', 'busy', 'screen', 'lowlight'] as const;
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

/** How the camera sees the talking head: its light (1: a lit room) and its sensor's noise, peak to peak in 8-bit levels of brightness and of colour. */
interface Exposure {
  light: number;
  noise: number;
  chromaNoise: number;
}
const LIT: Exposure = { light: 1, noise: 6, chromaNoise: 0 };
const DIM: Exposure = { light: 0.35, noise: 34, chromaNoise: 14 };

function drawTalking(
  { width: W, height: H }: Y4mFormat,
  { light, noise: grain, chromaNoise }: Exposure,
): (frame: Buffer, f: number) => void {
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
        frame[k] = clamp(16 + (v - 16) * light + (noise() - 0.5) * grain);
      }
    }
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const [dx, dy] = [(2 * x - cx) / rx, (2 * y - cy) / ry];
        const face = dx * dx + dy * dy <= 1;
        const shirt = 2 * y > 0.7 * H + 0.18 * H * ((2 * x - cx) / (0.6 * W)) ** 2 && Math.abs(2 * x - cx) < 0.42 * W;
        // No draw from the generator where there is no colour noise: the lit head stays the clip it always was.
        const tint = (c: number) => clamp(128 + (c - 128) * light + (chromaNoise ? (noise() - 0.5) * chromaNoise : 0));
        frame[W * H + y * cw + x] = tint(face ? 112 : shirt ? 150 : 124);
        frame[W * H + cw * ch + y * cw + x] = tint(face ? 150 : shirt ? 112 : 132);
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

/** Letters of the screen's text: 5×7 cells, each glyph a seeded pattern of strokes (no font is needed, and the page reads as text to an encoder). */
function glyphs(count: number, seed: number): boolean[][] {
  const rnd = random(seed);
  return Array.from({ length: count }, () => {
    const cells = Array.from({ length: 35 }, () => false);
    // A stem, a bowl or a bar or two, as letters are drawn: strokes, not noise.
    const strokes = 2 + Math.floor(rnd() * 3);
    for (let k = 0; k < strokes; k++) {
      const vertical = rnd() < 0.5;
      const at = Math.floor(rnd() * (vertical ? 5 : 7));
      const [from, to] = [Math.floor(rnd() * 3), 4 + Math.floor(rnd() * 3)];
      for (let i = from; i <= Math.min(to, vertical ? 6 : 4); i++) cells[vertical ? i * 5 + at : at * 5 + i] = true;
    }
    return cells;
  });
}

function drawScreen({ width: W, height: H }: Y4mFormat, frames: number): (frame: Buffer, f: number) => void {
  // Sized to the picture's height, so a 720p page is the 360p one drawn twice as fine.
  const px = Math.max(1, Math.round(H / 360));
  const [lineH, bar, side] = [12 * px, Math.round(H / 10), Math.round(W * 0.2)];
  // The page is twice the screen's height and scrolls by once per clip, so the clip loops without a seam.
  const PH = 2 * H;
  const page = new Uint8Array(W * PH).fill(235);
  const letters = glyphs(40, 9);
  const rnd = random(10);
  const letter = (g: boolean[], x0: number, y0: number, bold: boolean) => {
    for (let cy = 0; cy < 7; cy++)
      for (let cx = 0; cx < 5; cx++)
        if (g[cy * 5 + cx])
          for (let dy = 0; dy < px; dy++)
            for (let dx = 0; dx < px * (bold ? 2 : 1); dx++) {
              const [x, y] = [x0 + cx * px + dx, y0 + cy * px + dy];
              if (x < W && y < PH) page[y * W + x] = 30;
            }
  };
  for (let y = 2 * px, line = 0; y + lineH <= PH - 2 * px; y += lineH, line++) {
    // Paragraphs of seven lines, the last one short, a blank line after each; every third opens with a bold heading.
    if (line % 8 === 7) continue;
    const heading = line % 24 === 0;
    let x = side + 8 * px;
    const end = W - 8 * px - (heading ? W / 3 : line % 8 === 6 ? W / 4 : 0);
    while (x < end) {
      const word = 2 + Math.floor(rnd() * 8);
      if (x + word * 6 * px > end) break;
      for (let k = 0; k < word; k++, x += 6 * px) letter(letters[Math.floor(rnd() * letters.length)]!, x, y + 2 * px, heading);
      x += 5 * px;
    }
  }
  // The sidebar: a grey column of menu entries, scrolling with the page.
  for (let y = 0; y < PH; y++)
    for (let x = 0; x < side; x++) page[y * W + x] = y % (3 * lineH) < lineH * 0.7 && x > 6 * px && x < side - 12 * px ? 150 : 210;
  const [cw, ch] = [W / 2, H / 2];
  return (frame, f) => {
    const scroll = Math.round((f * PH) / frames);
    for (let y = 0; y < H; y++) {
      const row = ((y + scroll) % PH) * W;
      frame.set(page.subarray(row, row + W), y * W);
    }
    // A toolbar that stays: dark, with a few tabs; and a pointer drifting over the text.
    for (let y = 0; y < bar; y++) for (let x = 0; x < W; x++) frame[y * W + x] = x % (W / 6) < W / 8 && y > bar / 3 ? 70 : 45;
    const [mx, my] = [Math.round(W * (0.55 + 0.2 * Math.sin((2 * Math.PI * f) / frames))), Math.round(H * 0.6)];
    for (let dy = 0; dy < 14 * px; dy++)
      for (let dx = 0; dx <= dy / 2; dx++) frame[(my + dy) * W + mx + dx] = dx === 0 || dx >= dy / 2 - 1 ? 16 : 235;
    for (let y = 0; y < ch; y++)
      for (let x = 0; x < cw; x++) {
        // Neutral but for the toolbar's blue.
        frame[W * H + y * cw + x] = 2 * y < bar ? 150 : 128;
        frame[W * H + cw * ch + y * cw + x] = 2 * y < bar ? 118 : 128;
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
  const draw = {
    talking: () => drawTalking(format, LIT),
    lowlight: () => drawTalking(format, DIM),
    busy: () => drawBusy(format, frames),
    screen: () => drawScreen(format, frames),
  }[content]();
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
