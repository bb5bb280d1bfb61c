// Stores a campaign in a project, for the dashboard's "How good is the score" page.
import type { CalibrationStored, CalibrationUpload } from '@rtcscope/protocol';
import { VIDEO_MODEL } from '@rtcscope/diagnosis';
import type { HeardRow, Measured, Row } from './calls.js';
import { fitSaid, modelSaid, SHIPPED_AUDIO, shipped } from './models.js';

/** Which call and when a window was, as the calibration API takes it (runs before setups were kept have none). */
const callOf = (r: Row | HeardRow) => ({
  content: r.content,
  case: r.case,
  family: r.family,
  ...(r.setup ? { setup: r.setup, run: r.run } : {}),
  ts: r.ts,
});

const distinct = (xs: readonly (string | number | undefined)[]) => [...new Set(xs.filter((x) => x !== undefined))];

/** Uploads the run (its windows scored by the shipped model); the run's setup names each thing its setups share, and lists what they do not with '+'. */
export async function upload({ seen, heard }: Measured, url: string, key: string, callS: number): Promise<void> {
  const heights = distinct(seen.map((r) => r.height ?? 360)) as number[];
  const body: CalibrationUpload = {
    setup: {
      sender: 'chromium',
      receiver: distinct(seen.map((r) => r.receiver ?? 'chromium')).join('+'),
      codec: distinct(seen.map((r) => r.codec ?? 'VP8')).join('+'),
      width: Math.round(((heights[0] ?? 360) * 16) / 9),
      height: heights[0] ?? 360,
      fps: 30,
      callS,
      scoreModel: `video: ${modelSaid(VIDEO_MODEL)}; audio: the E-model, ${fitSaid(SHIPPED_AUDIO)}`,
    },
    windows: seen.map((r) => ({
      ...callOf(r),
      score: shipped(r),
      vmaf: r.vmaf,
      ssim: r.ssim,
      psnr: r.psnr,
      frozenShare: r.frozenShare,
      skipped: r.skipped,
    })),
    heard: heard.map((r) => ({
      ...callOf(r),
      score: r.score,
      pesq: r.pesq,
      ...(r.visqol !== undefined ? { visqol: r.visqol } : {}),
      correlation: r.correlation,
    })),
  };
  const res = await fetch(new URL('/api/v1/score-calibrations', url), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`upload to ${url}: ${res.status} ${await res.text()}`);
  console.log(`\nstored in the project at ${url} as calibration run ${((await res.json()) as CalibrationStored).id}`);
}
