import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFrameNumber } from '@rtcscope/reference-quality';
import { afterAll, describe, expect, it } from 'vitest';
import { readY4mLuma } from '../browser/y4m.js';
import { CLIP_CONTENTS, type ClipContent, writeNumberedClip } from './clip.js';

const dir = mkdtempSync(join(tmpdir(), 'rtcscope-clip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A content's first second at 640×360, and each of its frames' luma. */
async function second(content: ClipContent) {
  const clip = await writeNumberedClip(join(dir, `${content}.y4m`), content, { seconds: 1 });
  return { clip, luma: Array.from({ length: clip.frames }, (_, k) => readY4mLuma(clip.path, clip, k)) };
}

const mean = (xs: Uint8Array) => xs.reduce((a, v) => a + v, 0) / xs.length;
/** How much a frame's brightness differs from the next one's at the same pixel, on average: motion and noise. */
const change = (a: Uint8Array, b: Uint8Array) => a.reduce((s, v, k) => s + Math.abs(v - b[k]!), 0) / a.length;

describe('numbered clips', () => {
  it.each(CLIP_CONTENTS)('%s: every frame carries its number, read back from its corner', async (content) => {
    const { clip, luma } = await second(content);
    expect(luma.map((y) => readFrameNumber(y, clip.width, clip.height))).toEqual(luma.map((_, k) => k));
  });

  it('draws each content as it says: the dim room darker and noisier than the lit one, the page mostly white with sharp glyphs', async () => {
    const [talking, lowlight, screen] = await Promise.all([second('talking'), second('lowlight'), second('screen')]);
    expect(mean(lowlight.luma[5]!)).toBeLessThan(0.6 * mean(talking.luma[5]!));
    // Frame to frame, the dim room's noise moves far more than the lit room's head.
    expect(change(lowlight.luma[5]!, lowlight.luma[6]!)).toBeGreaterThan(3 * change(talking.luma[5]!, talking.luma[6]!));
    const white = screen.luma[5]!.filter((v) => v >= 230).length / screen.luma[5]!.length;
    expect(white).toBeGreaterThan(0.4);
    // Sharp glyphs: dark text pixels next to white ones, as a page has and a camera's picture does not.
    const edges = (y: Uint8Array, w: number) => y.filter((v, k) => k % w < w - 1 && Math.abs(v - y[k + 1]!) > 150).length;
    expect(edges(screen.luma[5]!, screen.clip.width)).toBeGreaterThan(20 * edges(talking.luma[5]!, talking.clip.width));
  });
});
