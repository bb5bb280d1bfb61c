// What a calibration campaign prints and writes: every window as CSV, scatter plots, and the agreement of
// each score with its reference — overall, per family, content and setup, each with its 95 % interval —
// for the shipped models and for refits judged on contents and runs they were not fitted on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VIDEO_MODEL } from '@rtcscope/diagnosis';
import {
  type Agreement,
  agreement,
  agreementTable,
  type CalibratedWindow,
  PESQ,
  type Reference,
  VISQOL,
  VMAF,
} from '@rtcscope/reference-quality';
import { scatterSvg } from '../scatter-svg.js';
import { AUDIO_INPUTS, type HeardRow, INPUTS, type Row, SENDER_INPUTS } from './calls.js';
import { callKey } from './design.js';
import { reportLiveKit } from './livekit.js';
import {
  audioRefit,
  BITS_REFIT,
  type Candidate,
  CONTENT_FIT,
  fitSaid,
  fmt,
  heardScored,
  heldOut,
  modelSaid,
  QP_REFIT,
  SHIPPED_AUDIO,
  shipped,
} from './models.js';

/** The targets issue 62 sets: Spearman overall, and in every family but those a reference cannot see. */
const TARGET = { video: { overall: 0.85, family: 0.7 }, audio: { overall: 0.8, family: 0.7 } };

/** What says which call a window is of (runs before setups and runs were kept: their content and case). */
interface OfCall extends CalibratedWindow {
  setup?: string;
  case?: string;
  run?: number;
}
/** Which call a window is of, for intervals drawn by whole calls. */
const call = (r: OfCall) => callKey({ setup: r.setup ?? 'chromium 360p VP8', content: r.content, case: r.case ?? '', run: r.run ?? 1 });

const interval = (a: Agreement) => (a.spearmanInterval ? ` [${a.spearmanInterval.map((x) => fmt(x)).join(', ')}]` : '');

/** One line of a table: windows, ranges, Spearman with its interval, Pearson, MAE, and the second measure's Spearman. */
const said = (a: Agreement, what: string, second?: string) =>
  `${a.n} windows (score ${a.scoreRange?.map((x) => fmt(x)).join('–')}, ${what} ${a.referenceRange?.map((x) => fmt(x, what === 'VMAF' ? 0 : 2)).join('–')}); Spearman ${fmt(a.spearman)}${interval(a)}, Pearson ${fmt(a.pearson)}, MAE ${fmt(a.mae)} on 1–5${second ? `; against ${second} Spearman ${fmt(a.secondSpearman)}` : ''}`;

/** The table overall, per family (each with the clean calls), per content, and per setup where the run had several. */
function printTable<R extends OfCall>(
  rows: readonly R[],
  reference: Reference<NoInfer<R>>,
  score: (r: R) => number | null,
  what: string,
  second?: string,
) {
  const options = { call };
  const table = agreementTable(rows, reference, score, options);
  for (const row of table)
    console.log(`  ${row.name}${row.over === 'family' ? ' (with the clean calls)' : ''}: ${said(row.agreement, what, second)}`);
  const setups = [...new Set(rows.map((r) => r.setup ?? ''))];
  if (setups.length > 1)
    for (const s of setups)
      console.log(
        `  ${s}: ${said(
          agreement(
            rows.filter((r) => r.setup === s),
            reference,
            score,
            options,
          ),
          what,
          second,
        )}`,
      );
  return table;
}

/** Each family's points, `value` against `score`, drawn to `out/file`. */
function plot<R extends { family: string }>(
  out: string,
  file: string,
  title: string,
  rows: readonly R[],
  x: { label: string; min: number; max: number; value: (r: R) => number | null },
  y: { label: string; score: (r: R) => number | null },
) {
  writeFileSync(
    join(out, file),
    scatterSvg({
      title,
      x,
      y: { label: y.label, min: 1, max: 5 },
      series: [...new Set(rows.map((r) => r.family))].map((f) => ({
        name: f,
        points: rows
          .filter((r) => r.family === f && x.value(r) !== null && y.score(r) !== null)
          .map((r) => ({ x: x.value(r)!, y: y.score(r)! })),
      })),
    }),
  );
}

/**
 * A candidate judged on windows it was not fitted on: fitted with one content left out and scored on it,
 * each content in turn; then the same with one run left out. Says whether the targets are met, and by how
 * much they are missed where not.
 */
function judgeHeldOut<R extends OfCall, P>(
  rows: readonly R[],
  reference: Reference<NoInfer<R>>,
  c: Candidate<R, P>,
  what: string,
  target: { overall: number; family: number },
  exempt: readonly string[] = [],
) {
  const folds: [string, (r: R) => string][] = [
    ['content', (r) => r.content],
    ['run', (r) => String(r.run ?? 1)],
  ];
  for (const [name, fold] of folds) {
    if (new Set(rows.map(fold)).size < 2) continue;
    const { score, fits } = heldOut(rows, fold, c);
    console.log(
      `\n${c.name}, each ${name} scored by the fit on the others (${fits.map((f) => `without ${f.fold}: ${c.said(f.params)}`).join('; ')}):`,
    );
    const table = printTable(rows, reference, score, what);
    const misses = table
      .filter((row) => (row.over === 'all' || (row.over === 'family' && !exempt.includes(row.name))) && row.agreement.spearman !== null)
      .map((row) => ({ row, floor: row.over === 'all' ? target.overall : target.family }))
      .filter(({ row, floor }) => row.agreement.spearman! < floor)
      .map(({ row, floor }) => `${row.name} ${fmt(row.agreement.spearman)} (${fmt(floor - row.agreement.spearman!)} short of ${floor})`);
    console.log(
      `  against the targets (≥ ${target.overall} overall, ≥ ${target.family} in every family${exempt.length ? ` but ${exempt.join(', ')}` : ''}): ${misses.length ? `missed: ${misses.join('; ')}` : 'met'}`,
    );
  }
}

/** Which call a window is of, the first columns of each CSV. */
const CALL_COLUMNS = ['setup', 'receiver', 'height', 'codec', 'content', 'case', 'family', 'run'] as const;

export function reportVideo(all: readonly Row[], out: string): void {
  const columns = [...CALL_COLUMNS, 'ts', 'score', 'vmaf', 'ssim', 'psnr', 'frozenShare', 'skipped', 'presented', 'latencyMs'] as const;
  const csvRow = (r: Row) =>
    [...columns.map((k) => r[k] ?? ''), ...INPUTS.map((f) => r.inputs[f] ?? ''), ...SENDER_INPUTS.map((f) => r.sender?.[f] ?? '')].join(
      ',',
    );
  writeFileSync(
    join(out, 'windows.csv'),
    [[...columns, ...INPUTS, ...SENDER_INPUTS.map((f) => `sender ${f}`)].join(','), ...all.map(csvRow)].join('\n') + '\n',
  );
  const y = { label: 'rtcscope video score, 1–5', score: shipped };
  plot(
    out,
    'score-vs-vmaf.svg',
    'Video score against VMAF, per 5-s window',
    all,
    { label: 'VMAF (vmaf_v0.6.1)', min: 0, max: 100, value: (r) => r.vmaf },
    y,
  );
  plot(
    out,
    'score-vs-ssim.svg',
    'Video score against SSIM, per 5-s window',
    all,
    { label: 'SSIM', min: 0.2, max: 1, value: (r) => r.ssim },
    y,
  );
  const drift = Math.max(0, ...all.map((r) => Math.abs(shipped(r) - r.score)));
  console.log(
    `\nscore of the received video, shipped (${modelSaid(VIDEO_MODEL)}), against what was seen (windows in ${out}; recomputed from their inputs, ${fmt(drift, 3)} at most from the scores the run stored):`,
  );
  printTable(all, VMAF, shipped, 'VMAF', 'SSIM');
  reportLiveKit(all, VMAF, 'VMAF', 60, shipped);
  // CPU and delay move neither the picture nor the score (docs/scores.md): their correlations are of noise.
  judgeHeldOut(all, VMAF, BITS_REFIT, 'VMAF', TARGET.video, ['cpu', 'delay']);
  judgeHeldOut(all, VMAF, QP_REFIT, 'VMAF', TARGET.video, ['cpu', 'delay']);
  judgeHeldOut(all, VMAF, CONTENT_FIT, 'VMAF', TARGET.video, ['cpu', 'delay']);
}

export function reportAudio(heard: readonly HeardRow[], out: string): void {
  const columns = [...CALL_COLUMNS, 'ts', 'score', 'visqol', 'pesq', 'loopOffsetS', 'correlation', 'error'] as const;
  const csvRow = (r: HeardRow) =>
    [
      ...columns.map((k) => (k === 'error' ? JSON.stringify(r.error ?? '') : (r[k] ?? ''))),
      ...AUDIO_INPUTS.map((f) => r.inputs[f] ?? ''),
    ].join(',');
  writeFileSync(join(out, 'heard.csv'), [[...columns, ...AUDIO_INPUTS].join(','), ...heard.map(csvRow)].join('\n') + '\n');
  const listening = (r: HeardRow) => heardScored(r, SHIPPED_AUDIO, false);
  const scoreLabel = 'rtcscope audio score, listening part, 1–5';
  plot(
    out,
    'score-vs-pesq.svg',
    'Audio score (listening) against PESQ, per 5-s window',
    heard,
    { label: 'PESQ, wideband MOS-LQO', min: 1, max: 5, value: (r) => r.pesq },
    { label: scoreLabel, score: listening },
  );
  const withVisqol = heard.filter((r) => r.visqol !== null && r.visqol !== undefined);
  if (withVisqol.length)
    plot(
      out,
      'score-vs-visqol.svg',
      'Audio score (listening) against ViSQOL, per 5-s window',
      withVisqol,
      { label: 'ViSQOL v3, speech MOS-LQO', min: 1, max: 5, value: (r) => r.visqol ?? null },
      { label: scoreLabel, score: listening },
    );
  const drift = Math.max(0, ...heard.map((r) => Math.abs((heardScored(r, SHIPPED_AUDIO, true) ?? r.score) - r.score)));
  console.log(
    `\nscore of the received audio (the E-model, as shipped, with the delay's impairment) against what was heard (windows in ${out}; recomputed from their inputs, ${fmt(drift, 3)} at most from the scores the run stored):`,
  );
  const [reference, name, second] = withVisqol.length ? [VISQOL, 'ViSQOL', 'PESQ'] : [PESQ, 'PESQ', undefined];
  printTable(heard, reference, (r) => r.score, name, second);
  // A listening test cannot hear the delay the E-model charges a conversation for: its listening part is the fair comparison.
  console.log(`\nits listening part (without the delay's impairment, ${fitSaid(SHIPPED_AUDIO)}):`);
  printTable(heard, reference, listening, name, second);
  reportLiveKit(heard, reference, name, 3, (r) => r.score);
  judgeHeldOut(heard, reference, audioRefit(reference), name, TARGET.audio, ['delay']);
}
