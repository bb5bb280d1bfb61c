import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mean } from '@rtcscope/metrics';
import { alignStream, BEHIND_MS, type FrameSeen, psnr, readFrameNumber, resizeLuma, ssim } from '@rtcscope/reference-quality';
import { readY4mLuma } from '../browser/y4m.js';
import type { NumberedClip } from './clip.js';
import type { VideoRecording } from './recorder.js';

/** One window of a received video against its source. */
export interface WindowQuality {
  /** The window's start (epoch ms), as the call's score windows. */
  ts: number;
  /** Ticks compared (the picture on screen against the one due), and their mean measures. */
  ticks: number;
  ssim: number | null;
  psnr: number | null;
  /** VMAF (0–100, model vmaf_v0.6.1) where an ffmpeg with libvmaf was given. */
  vmaf: number | null;
  frozenShare: number;
  skipped: number;
  presented: number;
  latencyMs: number | null;
}

export interface MeasureOptions {
  windowMs: number;
  /** A folder for the pictures handed to ffmpeg. */
  dir: string;
  /** An ffmpeg built with libvmaf (scripts/install-quality-tools.sh); without one, SSIM and PSNR only. */
  ffmpeg?: string;
}

const numbered = (frames: readonly { t: number; w: number; h: number }[], luma: (k: number) => Uint8Array): FrameSeen[] =>
  frames.map((f, k) => ({ t: f.t, n: readFrameNumber(luma(k), f.w, f.h) }));

/**
 * Measures what a viewer saw against the clip sent, per window: each tick's picture (scaled to the clip's
 * size, as a player draws it) against the clip frame it stands for. A picture no more than BEHIND_MS
 * behind the one due is compared with its own source frame (a player's few frames of jitter go unseen);
 * one further behind (held by a freeze) with the frame due then, so a freeze costs what it hid.
 */
export async function measureVideo(
  clip: NumberedClip,
  sent: VideoRecording,
  received: VideoRecording,
  o: MeasureOptions,
): Promise<WindowQuality[]> {
  const aligned = alignStream(
    numbered(sent.frames, (k) => sent.frames[k]!.code),
    numbered(received.frames, (k) => received.frames[k]!.code),
    numbered(received.ticks, (k) => received.ticks[k]!.y),
    { period: clip.frames, fps: clip.fps, windowMs: o.windowMs },
  );
  const sources = new Map<number, Uint8Array>();
  const source = (n: number) => {
    const luma = sources.get(n) ?? readY4mLuma(clip.path, clip, n);
    sources.set(n, luma);
    return luma;
  };
  const pairs: { window: number; ref: Uint8Array; dist: Uint8Array }[] = [];
  for (const [k, tick] of aligned.ticks.entries()) {
    if (tick.due === null || tick.shown === null || tick.behindMs === null) continue;
    const screen = received.ticks[k]!;
    pairs.push({
      window: tick.window,
      ref: source(tick.behindMs > BEHIND_MS ? tick.due : tick.shown),
      dist: resizeLuma(screen.y, screen.w, screen.h, clip.width, clip.height),
    });
  }
  const vmaf = o.ffmpeg && pairs.length ? await vmafOf(o.ffmpeg, pairs, clip, o.dir) : null;
  const measured = pairs.map((p, k) => ({
    window: p.window,
    ssim: ssim(p.ref, p.dist, clip.width, clip.height),
    psnr: psnr(p.ref, p.dist),
    vmaf: vmaf?.[k] ?? null,
  }));
  return aligned.windows.map((w) => {
    const mine = measured.filter((m) => m.window === w.ts);
    const of = (f: 'ssim' | 'psnr' | 'vmaf') => mean(mine.map((m) => m[f]).filter((v): v is number => v !== null));
    return { ...w, ticks: mine.length, ssim: of('ssim'), psnr: of('psnr'), vmaf: of('vmaf') };
  });
}

/** VMAF of each pair, from one run of ffmpeg's libvmaf over the pictures in order. */
async function vmafOf(
  ffmpeg: string,
  pairs: readonly { ref: Uint8Array; dist: Uint8Array }[],
  clip: NumberedClip,
  dir: string,
): Promise<number[]> {
  const [dist, ref, log] = [join(dir, 'dist.gray'), join(dir, 'ref.gray'), join(dir, 'vmaf.json')];
  writeFileSync(dist, Buffer.concat(pairs.map((p) => p.dist)));
  writeFileSync(ref, Buffer.concat(pairs.map((p) => p.ref)));
  const raw = ['-f', 'rawvideo', '-pix_fmt', 'gray', '-s', `${clip.width}x${clip.height}`, '-r', String(clip.fps)];
  await promisify(execFile)(
    ffmpeg,
    [
      ...['-hide_banner', '-loglevel', 'error', ...raw, '-i', dist, ...raw, '-i', ref],
      ...['-lavfi', `[0:v]format=yuv420p[d];[1:v]format=yuv420p[r];[d][r]libvmaf=log_fmt=json:log_path=${log}:n_threads=2`],
      ...['-f', 'null', '-'],
    ],
    { maxBuffer: 1 << 20 },
  );
  const frames = (JSON.parse(readFileSync(log, 'utf8')) as { frames: { frameNum: number; metrics: { vmaf: number } }[] }).frames;
  if (frames.length !== pairs.length) throw new Error(`libvmaf scored ${frames.length} pictures of ${pairs.length}`);
  return frames.sort((a, b) => a.frameNum - b.frameNum).map((f) => f.metrics.vmaf);
}
