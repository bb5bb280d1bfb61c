// Our call scores against full-reference quality: real calls on this machine, the sender's fake camera
// playing a numbered clip of known content (a person talking, a busy panning picture, a shared page of
// text scrolling, the person in a dim room) and its fake microphone known speech (espeak-ng); the
// receiver's page records what it showed and played. Per 5-second window, VMAF (libvmaf through an
// ffmpeg the bench installs: scripts/install-quality-tools.sh), SSIM and PSNR of what the viewer saw
// against what was sent, and ViSQOL v3 and PESQ of what the listener heard against what was said —
// beside the scores rtcscope gave those windows, the inputs they were computed from, and the sender's
// own stats of the same video. One impairment on the sender's uplink per call, from its start.
// The campaign runs every case in a first setup and a level or two of each family in the others (the
// picture's size, the codec, the receiving browser), each call several times (quality/design.ts); it
// prints per call what was measured, then the agreement tables with 95 % intervals drawn by whole calls,
// and each refit judged on the contents and the runs it was not fitted on (quality/report.ts).
// Writes every window to BENCH_QUALITY_OUT (default test-results/quality): video in windows.json and
// windows.csv, audio in heard.json and heard.csv, the calls measured in calls.json; and scatter plots.
// Run: pnpm bench:quality   (BENCH_QUALITY_SETUPS=chromium-360-VP8,firefox-360-VP8,… receiver-height-codec[-livekit];
//      BENCH_QUALITY_RUNS=3; BENCH_QUALITY_CONTENTS=talking,busy,screen,lowlight; BENCH_QUALITY_CASES=clean,cap-300,…
//      for every setup; BENCH_QUALITY_S=40 a call's length, the first BENCH_QUALITY_SKIP_S=10 s left out;
//      BENCH_QUALITY_RESUME=1 goes on from the calls.json in BENCH_QUALITY_OUT, skipping the calls measured;
//      BENCH_QUALITY_FROM=…/windows.json reports a stored run again without calls;
//      BENCH_QUALITY_UPLOAD=http://host:port with BENCH_QUALITY_KEY=<API key with the lab scope> stores the
//      run in that project, for the dashboard's "How good is the score" page)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CLIP_CONTENTS,
  type ClipContent,
  cpuLimitUsable,
  type NumberedClip,
  type SpeechLoop,
  writeNumberedClip,
  writeSpeechLoop,
} from '@rtcscope/lab';
import { startLabServer } from './lab-server.js';
import { type AudioInputs, type Bench, type HeardRow, type Measured, missed, runCall } from './quality/calls.js';
import { callKey, CASES, DEFAULT_SETUPS, parseSetups, plan, setupName, VARIANT_CASES } from './quality/design.js';
import { reportAudio, reportVideo } from './quality/report.js';
import { upload } from './quality/upload.js';

const CALL_S = Number(process.env.BENCH_QUALITY_S ?? 40);
const SKIP_S = Number(process.env.BENCH_QUALITY_SKIP_S ?? 10);
const RUNS = Number(process.env.BENCH_QUALITY_RUNS ?? 3);
const SCRIPTS = join(import.meta.dirname, '..', 'scripts');
const OUT = process.env.BENCH_QUALITY_OUT ?? join(import.meta.dirname, '..', 'test-results', 'quality');
const CALLS_JSON = join(OUT, 'calls.json');

const setups = parseSetups(process.env.BENCH_QUALITY_SETUPS ?? DEFAULT_SETUPS);
const picked = process.env.BENCH_QUALITY_CASES?.split(',');
const cpu = cpuLimitUsable();
if (!cpu.ok) console.log(`cpu cases: left out (${cpu.why})`);
const contents = (process.env.BENCH_QUALITY_CONTENTS?.split(',') ?? [...CLIP_CONTENTS]) as ClipContent[];
for (const c of contents)
  if (!CLIP_CONTENTS.includes(c)) throw new Error(`BENCH_QUALITY_CONTENTS: no content "${c}" (${CLIP_CONTENTS.join(', ')})`);
const calls = plan(setups, contents, RUNS, (_, first) =>
  CASES.filter((c) => (picked ? picked.includes(c.name) : first || VARIANT_CASES.includes(c.name))).filter(
    (c) => c.cores === undefined || cpu.ok,
  ),
);

/** Every planned call not measured yet, each window measured and scored; written as they come, so a stopped campaign resumes. */
async function measureAll(): Promise<Measured> {
  const resume = process.env.BENCH_QUALITY_RESUME === '1' && existsSync(CALLS_JSON);
  const done = new Set<string>(resume ? (JSON.parse(readFileSync(CALLS_JSON, 'utf8')) as string[]) : []);
  const rows: Measured = resume ? stored(join(OUT, 'windows.json')) : { seen: [], heard: [] };
  const todo = calls.filter((p) => !done.has(callKey({ ...p, setup: setupName(p.setup), case: p.case.name })));
  console.log(
    `quality campaign: ${calls.length} calls of ${CALL_S} s (the first ${SKIP_S} s left out) — ${setups.map(setupName).join(', ')}; ${contents.join(', ')}; ${RUNS} runs${resume ? `; ${calls.length - todo.length} measured already, ${todo.length} to go` : ''}`,
  );
  if (!todo.length) return rows;
  const [ffmpeg, python] = execFileSync('bash', [join(SCRIPTS, 'install-quality-tools.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n') as [string, string];
  const lab = await startLabServer('quality');
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-quality-work-'));
  const b: Bench = { lab, ffmpeg, python, dir, scripts: SCRIPTS, callS: CALL_S, skipS: SKIP_S };
  const clips = new Map<string, Promise<NumberedClip>>();
  const speeches = new Map<string, Promise<SpeechLoop>>();
  const t0 = Date.now();
  try {
    mkdirSync(OUT, { recursive: true });
    for (const [k, p] of todo.entries()) {
      const size = `${p.content}-${p.setup.height}`;
      if (!clips.has(size))
        clips.set(
          size,
          writeNumberedClip(join(dir, `${size}.y4m`), p.content, { width: (p.setup.height * 16) / 9, height: p.setup.height }),
        );
      if (!speeches.has(p.content)) speeches.set(p.content, writeSpeechLoop(join(dir, `${p.content}.wav`), p.content, ffmpeg));
      const [clip, speech] = await Promise.all([clips.get(size)!, speeches.get(p.content)!]);
      const { seen, heard } = await runCall(b, clip, speech, p);
      rows.seen.push(...seen);
      rows.heard.push(...heard);
      done.add(callKey({ ...p, setup: setupName(p.setup), case: p.case.name }));
      // Written as they come: a long run stopped early keeps what it measured, and BENCH_QUALITY_RESUME=1 goes on from it.
      writeFileSync(join(OUT, 'windows.json'), JSON.stringify(rows.seen, null, 1));
      writeFileSync(join(OUT, 'heard.json'), JSON.stringify(rows.heard, null, 1));
      writeFileSync(CALLS_JSON, JSON.stringify([...done], null, 1));
      const perCall = (Date.now() - t0) / (k + 1);
      console.log(`  (${k + 1} of ${todo.length} calls, ${((perCall * (todo.length - k - 1)) / 60_000).toFixed(0)} min to go)`);
      // The recorder's cost to the call: the first clean call once more, nothing recorded, for p1's frame rate.
      if (k === 0 && p.case.name === 'clean' && !resume) await runCall(b, clip, speech, p, false);
    }
  } finally {
    // A call that fails leaves no server, database or folder behind.
    await lab.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

type StoredHeardRow = Omit<HeardRow, 'inputs'> & {
  inputs: Omit<AudioInputs, 'packets' | keyof ReturnType<typeof missed>> & Partial<AudioInputs>;
};
/** Runs before 2026-11-29 kept only each window's means, not its seconds' packets: the means read as one second. */
const withMissed = (r: StoredHeardRow): HeardRow => {
  const second = { ...r.inputs, packets: r.inputs.packets ?? null };
  return { ...r, inputs: { ...second, ...missed(second), ...r.inputs } };
};
/** A stored run: its video windows, and its audio windows beside them where the run measured audio. */
function stored(windowsJson: string): Measured {
  const heardJson = join(dirname(windowsJson), 'heard.json');
  return {
    seen: JSON.parse(readFileSync(windowsJson, 'utf8')) as Measured['seen'],
    heard: existsSync(heardJson) ? (JSON.parse(readFileSync(heardJson, 'utf8')) as StoredHeardRow[]).map(withMissed) : [],
  };
}

const from = process.env.BENCH_QUALITY_FROM;
const rows = from ? stored(from) : await measureAll();
mkdirSync(OUT, { recursive: true });
reportVideo(rows.seen, OUT);
if (rows.heard.length) reportAudio(rows.heard, OUT);
if (process.env.BENCH_QUALITY_UPLOAD) await upload(rows, process.env.BENCH_QUALITY_UPLOAD, process.env.BENCH_QUALITY_KEY ?? '', CALL_S);
process.exit(0);
