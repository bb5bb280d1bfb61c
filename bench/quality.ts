// Our call score against full-reference quality: real Chromium calls on this machine, the sender's fake
// camera playing a numbered clip of known content (a person talking; a busy panning picture), the
// receiver's page recording what it showed, and per 5-second window VMAF (libvmaf through an ffmpeg the
// bench installs: scripts/install-quality-tools.sh), SSIM and PSNR of what the viewer saw against what
// was sent, beside the score rtcscope gave that window of the received video. One impairment on the
// sender's uplink per call, from its start: caps, random and bursty loss, delay, jitter, CPU starvation.
// The sender's fake microphone plays known speech (espeak-ng), the receiver's page records what it heard,
// and per window PESQ (P.862.2 wideband, the pesq package) of it against the speech, beside the score
// rtcscope gave that window of the received audio (the E-model).
// Prints per case the windows' means, then Spearman and Pearson correlation of the score with VMAF
// (and SSIM), and of the audio score with PESQ, overall and per family, and the mean absolute error on
// 1–5. Writes every window to BENCH_QUALITY_OUT (default test-results/quality): video in windows.json and
// windows.csv, audio in heard.json and heard.csv; and scatter plots of the score against VMAF, SSIM and
// PESQ (score-vs-vmaf.svg, score-vs-ssim.svg, score-vs-pesq.svg).
// Run: pnpm bench:quality   (BENCH_QUALITY_S=60 a call's length; BENCH_QUALITY_CASES=clean,cap-300,...;
//      BENCH_QUALITY_RECEIVER=firefox to receive in Firefox; BENCH_QUALITY_SFU=livekit to call through a real
//      LiveKit (livekit-client, simulcast and dynacast), its ConnectionQuality of both set beside each window;
//      BENCH_QUALITY_CONTENTS=talking,busy; the first BENCH_QUALITY_SKIP_S=10 s of each call are left out:
//      the bandwidth estimate's ramp-up is the same in every case)
//      BENCH_QUALITY_UPLOAD=http://host:port with BENCH_QUALITY_KEY=<API key with the lab scope> stores
//      the run in that project, for the dashboard's "How good is the score" page
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  AudioRecording,
  CLIP_CONTENTS,
  type ClipContent,
  type HeardQuality,
  cpuLimitUsable,
  type LabCall,
  LIVEKIT_QUALITY,
  measureAudio,
  measureVideo,
  type NumberedClip,
  runScenario,
  type SpeechLoop,
  VideoRecording,
  type WindowQuality,
  writeNumberedClip,
  writeSpeechLoop,
} from '@rtcscope/lab';
import { mean } from '@rtcscope/metrics';
import type { CalibrationStored, CalibrationUpload, CallDiagnosis, CallEvents, Series } from '@rtcscope/protocol';
import {
  type Agreement,
  agreement as agreementOf,
  agreementTable,
  type CalibratedWindow,
  type HeardWindow,
  PESQ,
  type Reference,
  VMAF,
} from '@rtcscope/reference-quality';
import {
  audioMos,
  CODECS,
  missedPct,
  VIDEO_MODEL,
  type VideoConditions,
  type VideoModel,
  videoMos,
  videoShortfall,
} from '@rtcscope/diagnosis';
import { type Conditions, parseScenario } from '@rtcscope/scenario';
import { type LabServer, startLabServer } from './lab-server.js';
import { scatterSvg } from './scatter-svg.js';

const CALL_S = Number(process.env.BENCH_QUALITY_S ?? 60);
const SKIP_S = Number(process.env.BENCH_QUALITY_SKIP_S ?? 10);
const WINDOW_MS = 5000;
const TICK_MS = 100;
/** The receiver's browser (BENCH_QUALITY_RECEIVER=firefox: p1 in Firefox ESR). */
const RECEIVER = process.env.BENCH_QUALITY_RECEIVER === 'firefox' ? 'firefox' : 'chromium';
/** Through a LiveKit room instead of peer to peer (BENCH_QUALITY_SFU=livekit): the impairment on p0's uplink to the SFU. */
const SFU = process.env.BENCH_QUALITY_SFU === 'livekit' ? 'livekit' : null;
const SCRIPTS = join(import.meta.dirname, '..', 'scripts');
const OUT = process.env.BENCH_QUALITY_OUT ?? join(import.meta.dirname, '..', 'test-results', 'quality');

/** What the video score of a window is made of: its stream's means over the window (the inputs a refit of the score reads). */
const INPUTS = ['kbps', 'fps', 'width', 'height', 'lossPct', 'freezeMs', 'qp'] as const;
type Inputs = Record<(typeof INPUTS)[number], number | null>;
/** And the audio score's (the E-model reads loss, the round trip and the jitter buffer; what was concealed, beside). */
const AUDIO_INPUTS = ['lossPct', 'rttMs', 'jitterBufferMs', 'concealedPct', 'concealmentEventMs', 'packets'] as const;
/**
 * Each second's missed share as the score reads it (`missedPct`: an outage's second whole, else the
 * concealed share), and the same read as packets lost: a window's mean of a second read any share of each
 * way between is that share of each mean, which the loss refit weighs.
 */
const missed = (second: Record<(typeof AUDIO_INPUTS)[number], number | null>) => ({
  missedPct: missedPct(second),
  missedAsLostPct: missedPct(second, 0),
});
type AudioInputs = Record<(typeof AUDIO_INPUTS)[number] | keyof ReturnType<typeof missed>, number | null>;

interface Case {
  name: string;
  family: string;
  /** What is set on p0's uplink (the link p1's received video crosses) from the call's start. */
  set?: Conditions;
  /** p0's page held to this share of a core. */
  cores?: number;
}
const CASES: Case[] = [
  { name: 'clean', family: 'clean' },
  ...[1200, 600, 300, 150].map((kbps): Case => ({ name: `cap-${kbps}`, family: 'cap', set: { rateKbps: kbps } })),
  ...[2, 5, 10, 20].map((pct): Case => ({ name: `loss-${pct}`, family: 'random loss', set: { loss: { model: 'random', pct } } })),
  // Gilbert-Elliott: ~3.8 % lost in bursts of 4 (a far Wi-Fi hop, scenario library), and ~13 % in bursts of 5.
  { name: 'bursty-4', family: 'bursty loss', set: { loss: { model: 'gilbert-elliott', p: 0.01, r: 0.25, badPct: 100, goodPct: 0 } } },
  { name: 'bursty-13', family: 'bursty loss', set: { loss: { model: 'gilbert-elliott', p: 0.03, r: 0.2, badPct: 100, goodPct: 0 } } },
  ...[150, 400].map((ms): Case => ({ name: `delay-${ms}`, family: 'delay', set: { delayMs: ms } })),
  ...[30, 80].map((ms): Case => ({ name: `jitter-${ms}`, family: 'jitter', set: { jitterMs: ms } })),
  ...[0.4, 0.2].map((cores): Case => ({ name: `cpu-${cores * 100}`, family: 'cpu', cores })),
];

const picked = process.env.BENCH_QUALITY_CASES?.split(',');
const cpu = cpuLimitUsable();
if (!cpu.ok) console.log(`cpu cases: left out (${cpu.why})`);
const cases = (picked ? CASES.filter((c) => picked.includes(c.name)) : CASES).filter((c) => c.cores === undefined || cpu.ok);
const contents = (process.env.BENCH_QUALITY_CONTENTS?.split(',') ?? [...CLIP_CONTENTS]) as ClipContent[];

/** One window of one call: our score of p1's received video, and what p1 really saw. */
interface Row extends WindowQuality, LiveKitSaid {
  content: ClipContent;
  case: string;
  family: string;
  score: number;
  inputs: Inputs;
}

/**
 * Through LiveKit: the lowest ConnectionQuality livekit-client said of the sender and of the receiver
 * over the window (what their tiles showed), and the lower of the two as a rank (3 excellent … 0 lost).
 */
interface LiveKitSaid {
  livekit?: { p0: string; p1: string; level: number | null };
}

/** One window of one call: our score of p1's received audio, and what p1 really heard. */
interface HeardRow extends HeardQuality, HeardWindow, LiveKitSaid {
  content: ClipContent;
  case: string;
  family: string;
  score: number;
  inputs: AudioInputs;
}

/** What runs the calls: the server they report to, its API, the ffmpeg and Python that measure, a scratch folder. */
interface Bench {
  lab: LabServer;
  ffmpeg: string;
  python: string;
  dir: string;
}

/** What a case measured: the windows of p1's received video and audio. */
interface Measured {
  seen: Row[];
  heard: HeardRow[];
}

/** Every case's calls on every content, each window measured and scored. */
async function measureAll(): Promise<Measured> {
  const [ffmpeg, python] = execFileSync('bash', [join(SCRIPTS, 'install-quality-tools.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n') as [string, string];
  const lab = await startLabServer('quality');
  const dir = mkdtempSync(join(tmpdir(), 'rtcscope-bench-quality-work-'));
  const b: Bench = { lab, ffmpeg, python, dir };
  console.log(
    `quality benchmark: ${cases.length} cases × ${contents.join(', ')}, calls of ${CALL_S} s (the first ${SKIP_S} s left out), 640×360 at 30 fps, sent from Chromium to ${RECEIVER}${SFU ? ' through LiveKit' : ''}`,
  );
  const rows: Measured = { seen: [], heard: [] };
  try {
    mkdirSync(OUT, { recursive: true });
    for (const content of contents) {
      const t0 = Date.now();
      const clip = await writeNumberedClip(join(dir, `${content}.y4m`), content);
      const speech = await writeSpeechLoop(join(dir, `${content}.wav`), content, ffmpeg);
      console.log(
        `\n${content}: clip of ${clip.frames} frames and ${speech.seconds.toFixed(1)} s of speech written in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      for (const c of cases) {
        const { seen, heard } = await runCase(b, clip, speech, c);
        rows.seen.push(...seen);
        rows.heard.push(...heard);
        // Written as they come: a long run stopped early keeps what it measured.
        writeFileSync(join(OUT, 'windows.json'), JSON.stringify(rows.seen, null, 1));
        writeFileSync(join(OUT, 'heard.json'), JSON.stringify(rows.heard, null, 1));
      }
      // The recorder's cost to the call: the clean call once more, nothing recorded, for p1's frame rate.
      if (content === contents[0] && cases[0]?.name === 'clean') await runCase(b, clip, speech, cases[0], false);
    }
  } finally {
    // A case that fails leaves no server, database or folder behind.
    await lab.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function runCase(b: Bench, clip: NumberedClip, speech: SpeechLoop, c: Case, record = true): Promise<Measured> {
  const scenario = parseScenario({
    id: `quality-${c.name}-${clip.content}`,
    title: `Quality: ${c.name} on ${clip.content}`,
    participants: {
      count: 2,
      ...(SFU ? { topology: 'sfu', sfu: SFU } : { topology: 'pair' }),
      video: { width: clip.width, height: clip.height, fps: clip.fps },
      ...(c.cores ? { cpu: [c.cores, null] } : {}),
      // The sender stays in Chromium: its fake camera plays the clip (Firefox's fake camera is its own pattern).
      ...(RECEIVER === 'firefox' ? { browsers: ['chromium', 'firefox'] } : {}),
    },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: c.set ? [{ at: 0, on: 'uplink', participant: 0, set: c.set }] : [],
    durationS: CALL_S,
  });
  if (!scenario.ok) throw new Error(`${c.name}: ${scenario.error.field}: ${scenario.error.message}`);
  let recordings: Promise<[VideoRecording, VideoRecording, AudioRecording | Error]> | null = null;
  // p1's decoded frames from the end of the left-out start to 2 s before the end: the frame rate the recorder must not lower.
  const decoded: Promise<{ frames: number; ms: number }>[] = [];
  const run = await runScenario({
    server: b.lab.url,
    ingestKey: b.lab.ingestKey,
    scenario: scenario.value,
    runId: 'bench',
    repetition: 1,
    camera: clip.path,
    microphone: speech.path,
    onCall: (call: LabCall) => {
      for (const s of [SKIP_S, CALL_S - 2])
        decoded.push(
          new Promise((resolve, reject) =>
            setTimeout(
              () => call.snapshots().then(([, p1]) => resolve({ frames: p1!.in!.framesDecoded, ms: p1!.in!.timestamp }), reject),
              s * 1000,
            ),
          ),
        );
      if (record)
        recordings = Promise.all([
          VideoRecording.start(call.page(0), 'camera', { sourceHeight: clip.height }),
          VideoRecording.start(call.page(1), 'received', { sourceHeight: clip.height, tickMs: TICK_MS }),
          // What was heard, where the receiving browser can record it (an Error saying why not).
          AudioRecording.start(call.page(1)).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        ]);
    },
  });
  const [early, late] = await Promise.all(decoded);
  const fps = ((late!.frames - early!.frames) * 1000) / (late!.ms - early!.ms);
  if (!recordings) {
    console.log(`${clip.content} ${c.name}, nothing recorded: p1 decoded ${fps.toFixed(1)} fps`);
    return { seen: [], heard: [] };
  }
  const [sent, seen, listened] = await (recordings as Promise<[VideoRecording, VideoRecording, AudioRecording | Error]>);
  await Promise.all([sent.stop(), seen.stop(), listened instanceof AudioRecording ? listened.stop() : null]);
  const work = join(b.dir, 'measure');
  mkdirSync(work, { recursive: true });
  const windows = await measureVideo(clip, sent, seen, { windowMs: WINDOW_MS, dir: work, ffmpeg: b.ffmpeg });
  const scores = await windowScores(b, run.callId, 'video', INPUTS);
  const audioScores = await windowScores(b, run.callId, 'audio', AUDIO_INPUTS, missed);
  const from = run.startedAt + SKIP_S * 1000;
  const said = SFU ? await liveKitSaid(b, run.callId) : () => ({});
  const heard = (
    listened instanceof Error
      ? []
      : await measureAudio(
          speech,
          listened,
          [...audioScores.keys()].filter((ts) => ts >= from),
          { windowMs: WINDOW_MS, dir: work, ffmpeg: b.ffmpeg, pesq: { python: b.python, script: join(SCRIPTS, 'pesq-wb.py') } },
        )
  ).map((h): HeardRow => ({ ...h, content: clip.content, case: c.name, family: c.family, ...audioScores.get(h.ts)!, ...said(h.ts) }));
  const full = (WINDOW_MS / TICK_MS) * 0.8;
  const mine = windows
    .filter((w) => w.ts >= from && w.ticks >= full && scores.has(w.ts))
    .map((w): Row => ({ ...w, content: clip.content, case: c.name, family: c.family, ...scores.get(w.ts)!, ...said(w.ts) }));
  const avg = (f: (r: Row) => number | null) => {
    const xs = mine.map(f).filter((v): v is number => v !== null);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  const fmt = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));
  const heardBusyMs = listened instanceof AudioRecording ? listened.busyMs : 0;
  const parts = [
    `${mine.length} windows`,
    `score ${fmt(avg((r) => r.score))}`,
    `QP ${fmt(
      avg((r) => r.inputs.qp),
      1,
    )}`,
    `VMAF ${fmt(
      avg((r) => r.vmaf),
      1,
    )}`,
    `SSIM ${fmt(
      avg((r) => r.ssim),
      3,
    )}`,
    `PSNR ${fmt(
      avg((r) => r.psnr),
      1,
    )} dB`,
    `frozen ${fmt(
      avg((r) => 100 * r.frozenShare),
      1,
    )} %`,
    `skipped ${fmt(
      avg((r) => r.skipped),
      1,
    )} frames a window`,
    `latency ${fmt(
      avg((r) => r.latencyMs),
      0,
    )} ms`,
    ...(SFU ? [`LiveKit said ${liveKitTally(mine)}`] : []),
    `p1 decoded ${fps.toFixed(1)} fps`,
    `${seen.unread} frames unread${seen.lastError ? ` (${seen.lastError})` : ''}`,
    `recording took ${((seen.busyMs + heardBusyMs) / CALL_S).toFixed(1)} ms a second in p1's page (audio ${(heardBusyMs / CALL_S).toFixed(1)}), ${(sent.busyMs / CALL_S).toFixed(1)} in p0's`,
  ];
  console.log(`${clip.content} ${c.name}: ${parts.join(', ')}`);
  if (listened instanceof Error) {
    console.log(`${clip.content} ${c.name}, audio: not recorded (${listened.message})`);
    return { seen: mine, heard };
  }
  const unjudged = heard.filter((h) => h.pesq === null);
  const heardMean = (f: (r: HeardRow) => number | null) => mean(heard.map(f).filter((v): v is number => v !== null));
  console.log(
    `${clip.content} ${c.name}, audio: ${heard.length} windows, score ${fmt(heardMean((r) => r.score))}, PESQ ${fmt(heardMean((r) => r.pesq))}, aligned at correlation ${fmt(heardMean((r) => r.correlation))}, loss ${fmt(
      heardMean((r) => r.inputs.lossPct),
      1,
    )} %, concealed ${fmt(
      heardMean((r) => r.inputs.concealedPct),
      1,
    )} %${unjudged.length ? `; ${unjudged.length} not judged by PESQ (${unjudged[0]!.error})` : ''}`,
  );
  return { seen: mine, heard };
}

/** The score of p1's received video or audio per window and the means of `fields` over it, once the call's diagnosis has stored its windows. */
async function windowScores<F extends string, D extends string = never>(
  { lab: { api } }: Bench,
  callId: string,
  kind: 'video' | 'audio',
  fields: readonly F[],
  derive?: (second: Record<F, number | null>) => Record<D, number | null>,
): Promise<Map<number, { score: number; inputs: Record<F | D, number | null> }>> {
  // The last window is scored when the call ends: its participants silent for CALL_IDLE_TIMEOUT_S.
  for (let tries = 0; ; tries++) {
    const d = await api<CallDiagnosis>(`/calls/${callId}/diagnosis`);
    const stream = d.scores?.streams.find((s) => s.participantId === 'p1' && s.kind === kind);
    if (stream && (tries >= 20 || (await api<{ call: { endedAt: number | null } }>(`/calls/${callId}`)).call.endedAt !== null)) {
      const series = await api<Series>(`/calls/${callId}/series?maxPoints=10000&fields=${fields.join(',')}`);
      const seconds = series.streams
        .filter((p) => p.id === stream.streamId)
        .map((p) => {
          const values = Object.fromEntries(fields.map((f, k) => [f, p.v[k] ?? null])) as Record<F, number | null>;
          return { ts: p.ts, values: { ...values, ...derive?.(values) } as Record<F | D, number | null> };
        });
      return new Map(
        stream.windows.map((w) => {
          const mine = seconds.filter((p) => p.ts >= w.ts && p.ts < w.ts + WINDOW_MS).map((p) => p.values);
          const keys = Object.keys(mine[0] ?? {}) as (F | D)[];
          const inputs = Object.fromEntries(
            keys.map((f) => [f, mean(mine.map((v) => v[f]).filter((v): v is number => v !== null))]),
          ) as Record<F | D, number | null>;
          return [w.ts, { score: w.mos, inputs }];
        }),
      );
    }
    if (tries >= 20) throw new Error(`${callId}: no score of p1's received ${kind} after ${tries} tries`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** livekit-client's ConnectionQuality, best first: its rank is 3 for excellent down to 0 for lost. */
const LIVEKIT_LEVELS = ['lost', 'poor', 'good', 'excellent'] as const;

/**
 * What LiveKit said of p0 and p1 over each window (from the call's events, as the lab's pages recorded
 * it): for a window's start, the lowest each was said to be while the window lasted.
 */
async function liveKitSaid({ lab: { api } }: Bench, callId: string): Promise<(ts: number) => LiveKitSaid> {
  const { events } = await api<CallEvents>(`/calls/${callId}/events`);
  const timeline = (p: string) =>
    events
      .filter((e) => e.participantId === p && e.type === 'metadata' && e.detail?.includes(LIVEKIT_QUALITY))
      .map((e) => ({
        ts: e.ts,
        level: LIVEKIT_LEVELS.indexOf((JSON.parse(e.detail!) as Record<string, string>)[LIVEKIT_QUALITY] as 'lost'),
      }));
  const said = { p0: timeline('p0'), p1: timeline('p1') };
  const lowest = (t: { ts: number; level: number }[], from: number) => {
    const levels = t.filter((x, k) => x.ts < from + WINDOW_MS && (t[k + 1]?.ts ?? Infinity) > from && x.level >= 0).map((x) => x.level);
    return levels.length ? Math.min(...levels) : null;
  };
  return (ts) => {
    const [p0, p1] = [lowest(said.p0, ts), lowest(said.p1, ts)];
    const name = (l: number | null) => (l === null ? 'unknown' : LIVEKIT_LEVELS[l]!);
    return { livekit: { p0: name(p0), p1: name(p1), level: p0 === null || p1 === null ? null : Math.min(p0, p1) } };
  };
}

/** How many windows LiveKit called each level (the lower of the two), e.g. "excellent 8, good 1". */
const liveKitTally = (rs: readonly LiveKitSaid[]) => {
  const n = new Map<string, number>();
  for (const r of rs) {
    const l = r.livekit?.level;
    const name = l === null || l === undefined ? 'unknown' : LIVEKIT_LEVELS[l]!;
    n.set(name, (n.get(name) ?? 0) + 1);
  }
  return [...n].map(([k, v]) => `${k} ${v}`).join(', ') || 'nothing';
};

/**
 * LiveKit's ConnectionQuality beside rtcscope's score: how each ranks the windows against the reference
 * (Spearman; LiveKit's 4 levels tie often), and what LiveKit called the windows the reference found poor.
 */
function reportLiveKit<R extends LiveKitSaid & CalibratedWindow>(
  rs: readonly R[],
  reference: Reference<NoInfer<R>>,
  what: string,
  poorBelow: number,
  score: (r: R) => number | null,
) {
  const judged = rs.filter((r) => r.livekit?.level !== null && r.livekit?.level !== undefined);
  if (!judged.length) return;
  const [ours, theirs] = [agreementOf(judged, reference, score), agreementOf(judged, reference, (r) => r.livekit!.level)];
  const poor = judged.filter((r) => (reference.value(r) ?? Infinity) < poorBelow);
  console.log(
    `
LiveKit's ConnectionQuality (the lower of sender's and receiver's over the window) against ${what}, on the ${judged.length} windows it judged: Spearman ${theirs.spearman === null ? '– (one level for every window: it ranks none)' : fmt(theirs.spearman)}; rtcscope's score on the same windows: Spearman ${fmt(ours.spearman)}, Pearson ${fmt(ours.pearson)}`,
  );
  console.log(`  all windows: LiveKit said ${liveKitTally(judged)}`);
  console.log(
    `  the ${poor.length} windows ${what} put below ${poorBelow}: LiveKit said ${liveKitTally(poor)}; rtcscope's score ${fmt(mean(poor.map(score).filter((v): v is number => v !== null)))} on average`,
  );
}

/** A window's conditions as the score reads them, from its inputs; null where it has no picture. */
function conditions(r: Row): VideoConditions | null {
  const { kbps, fps, width, height, lossPct, freezeMs } = r.inputs;
  if (kbps === null || fps === null || height === null) return null;
  return {
    kbps,
    fps,
    width: width ?? (height * 16) / 9,
    height,
    lossPct: lossPct ?? 0,
    frozen: Math.min(1, (freezeMs ?? 0) / 1000),
    codec: 'vp8',
  };
}

/** A window's video score recomputed from its inputs under `model` (the stored score under the run's model, to a rounding). */
function rescored(r: Row, model: VideoModel): number | null {
  const c = conditions(r);
  return c && videoMos(c, model);
}

/**
 * The score were its coding quality read from the decoder's quantizer instead of bits per pixel (as
 * P.1203.1's mode 1 does): a logistic of QP/127 (VP8's range), 1 at QP 0, half at `mid`; the model's
 * other parts as they are.
 */
function qpScored(r: Row, model: VideoModel, mid: number, width: number): number | null {
  const c = conditions(r);
  const qp = r.inputs.qp;
  if (!c || qp === null || qp === undefined) return null;
  const [mos, bits] = [videoMos(c, model), videoShortfall(c, model)!.bitRate];
  const logistic = (share: number) => 1 / (1 + Math.exp((share - mid) / width));
  return 1 + (mos - 1 + bits) * (logistic(Math.min(1, qp / 127)) / logistic(0));
}

const shipped = (r: Row) => rescored(r, VIDEO_MODEL) ?? r.score;

/** How the shipped model's score (or another) agrees with VMAF over some windows. */
const agreement = (rs: readonly Row[], score: (r: Row) => number | null = shipped) => agreementOf(rs, VMAF, score);

const fmt = (v: number | null, digits = 2) => (v === null ? '–' : v.toFixed(digits));
const said = (a: Agreement) =>
  `${a.n} windows (score ${a.scoreRange?.map((x) => fmt(x)).join('–')}, VMAF ${a.referenceRange?.map((x) => fmt(x, 0)).join('–')}); against VMAF Spearman ${fmt(a.spearman)}, Pearson ${fmt(a.pearson)}, MAE ${fmt(a.mae)} on 1–5; against SSIM Spearman ${fmt(a.secondSpearman)}`;

const grid = (lo: number, hi: number, n: number) => Array.from({ length: n }, (_, k) => lo * (hi / lo) ** (k / (n - 1)));

/** Of `candidates`, the one whose score ranks `rs` best against the reference measure (ties: the lower error). */
function best<T, W extends CalibratedWindow>(
  rs: readonly W[],
  reference: Reference<NoInfer<W>>,
  candidates: readonly T[],
  score: (c: T) => (r: W) => number | null,
): T {
  let top: { c: T; rho: number; mae: number } = { c: candidates[0] as T, rho: -Infinity, mae: Infinity };
  for (const c of candidates) {
    const a = agreementOf(rs, reference, score(c));
    const [rho, mae] = [a.spearman ?? -Infinity, a.mae ?? Infinity];
    if (rho > top.rho + 1e-9 || (Math.abs(rho - top.rho) <= 1e-9 && mae < top.mae)) top = { c, rho, mae };
  }
  return top.c;
}

/** The video model's constants fitted to `rs`, on a grid: bits per pixel's scale 0.005–0.5, loss's 2–1000 %. */
const refit = (rs: readonly Row[]): VideoModel =>
  best(
    rs,
    VMAF,
    grid(0.005, 0.5, 41).flatMap((bppScale) => grid(2, 1000, 37).map((lossScalePct) => ({ bppScale, lossScalePct }))),
    (model) => (r) => rescored(r, model),
  );

/** The quantizer's logistic fitted to `rs` under `model`: its midpoint 0.2–0.95 of the range, its width 0.02–0.3. */
const refitQp = (rs: readonly Row[], model: VideoModel) =>
  best(
    rs,
    VMAF,
    Array.from({ length: 31 }, (_, k) => 0.2 + k * 0.025).flatMap((mid) => grid(0.02, 0.3, 15).map((width) => ({ mid, width }))),
    (q) => (r) => qpScored(r, model, q.mid, q.width),
  );

const modelSaid = (m: VideoModel) => `bppScale ${fmt(m.bppScale, 4)}, lossScalePct ${fmt(m.lossScalePct, 1)}`;

/** Each family's points, `value` against `score`, drawn to OUT/file. */
function plot<R extends { family: string }>(
  file: string,
  title: string,
  rows: readonly R[],
  x: { label: string; min: number; max: number; value: (r: R) => number | null },
  y: { label: string; score: (r: R) => number },
) {
  writeFileSync(
    join(OUT, file),
    scatterSvg({
      title,
      x,
      y: { label: y.label, min: 1, max: 5 },
      series: [...new Set(rows.map((r) => r.family))].map((f) => ({
        name: f,
        points: rows.filter((r) => r.family === f && x.value(r) !== null).map((r) => ({ x: x.value(r)!, y: y.score(r) })),
      })),
    }),
  );
}

function reportVideo(all: Row[]) {
  const columns = [
    'content',
    'case',
    'family',
    'ts',
    'score',
    'vmaf',
    'ssim',
    'psnr',
    'frozenShare',
    'skipped',
    'presented',
    'latencyMs',
  ] as const;
  const csvRow = (r: Row) => [...columns.map((k) => r[k] ?? ''), ...INPUTS.map((f) => r.inputs[f] ?? '')].join(',');
  writeFileSync(join(OUT, 'windows.csv'), [[...columns, ...INPUTS].join(','), ...all.map(csvRow)].join('\n') + '\n');
  const y = { label: 'rtcscope video score, 1–5', score: shipped };
  const vmaf = { label: 'VMAF (vmaf_v0.6.1)', min: 0, max: 100, value: (r: Row) => r.vmaf };
  plot('score-vs-vmaf.svg', 'Video score against VMAF, per 5-s window', all, vmaf, y);
  plot('score-vs-ssim.svg', 'Video score against SSIM, per 5-s window', all, { label: 'SSIM', min: 0.2, max: 1, value: (r) => r.ssim }, y);
  const drift = Math.max(0, ...all.map((r) => Math.abs(shipped(r) - r.score)));
  console.log(
    `\nscore of the received video (${modelSaid(VIDEO_MODEL)}) against what was seen (windows in ${OUT}; recomputed from their inputs, ${fmt(drift, 3)} at most from the scores the run stored):`,
  );
  const table = agreementTable(all, VMAF, shipped);
  console.log(`  overall: ${said(table[0]!.agreement)}`);
  for (const row of table.slice(1))
    console.log(`  ${row.name}${row.over === 'family' ? ' (with the clean calls)' : ''}: ${said(row.agreement)}`);
  reportLiveKit(all, VMAF, 'VMAF', 60, shipped);
  const inRun = [...new Set(all.map((r) => r.content))];
  if (inRun.length < 2) return;
  // Fitted on one content's windows, judged on the other's: no window judged was fitted on.
  const split = (content: string) => [all.filter((r) => r.content === content), all.filter((r) => r.content !== content)] as const;
  const fitted = new Map(inRun.map((content) => [content, refit(split(content)[0])]));
  console.log(`\nthe video model refitted on one content, judged on the other (shipped: ${modelSaid(VIDEO_MODEL)}):`);
  for (const content of inRun) {
    const held = split(content)[1];
    const model = fitted.get(content)!;
    console.log(
      `  fitted on ${content}: ${modelSaid(model)}; on the rest, shipped: ${said(agreement(held))}; refitted: ${said(agreement(held, (r) => rescored(r, model)))}; overall, refitted: ${said(agreement(all, (r) => rescored(r, model)))}`,
    );
  }
  if (!all.some((r) => r.inputs.qp !== null && r.inputs.qp !== undefined)) return;
  // The quantizer instead of bits per pixel, fitted and judged the same way (the score does not read it: docs/scores.md).
  console.log(`\ncoding quality from the decoder's quantizer instead of bits per pixel (the other parts as refitted on the same content):`);
  for (const content of inRun) {
    const [fit, held] = split(content);
    const model = fitted.get(content)!;
    const q = refitQp(fit, model);
    const score = (r: Row) => qpScored(r, model, q.mid, q.width);
    console.log(
      `  fitted on ${content}: QP/127 half at ${fmt(q.mid, 3)}, width ${fmt(q.width, 3)}; on the rest: ${said(agreement(held, score))}; overall: ${said(agreement(all, score))}`,
    );
  }
}

/**
 * How an audio window is scored: the loss the E-model reads — the concealed share where reported, as the
 * score has it (`concealedWeight` 1), the packets lost (0), or between — and the codec's robustness to it
 * (Bpl); with or without the delay part, which PESQ (a listening test) cannot hear.
 */
interface AudioFit {
  concealedWeight: number;
  bpl: number;
}
const SHIPPED_AUDIO: AudioFit = { concealedWeight: 1, bpl: CODECS.opus!.bpl };

function heardScored(r: HeardRow, fit: AudioFit, withDelay: boolean): number | null {
  const { missedPct, missedAsLostPct, rttMs, jitterBufferMs } = r.inputs;
  if (missedPct === null || missedAsLostPct === null) return null;
  const effective = fit.concealedWeight * missedPct + (1 - fit.concealedWeight) * missedAsLostPct;
  const delay = withDelay ? { rttMs: rttMs ?? 0, jitterBufferMs: jitterBufferMs ?? 0 } : { rttMs: 0, jitterBufferMs: 0 };
  return audioMos({ ...delay, lossPct: effective, codec: 'opus' }, { ie: 0, bpl: fit.bpl });
}

const fitSaid = (f: AudioFit) =>
  `loss read ${fmt(f.concealedWeight * 100, 0)} % as concealed, ${fmt((1 - f.concealedWeight) * 100, 0)} % as packets lost; Bpl ${fmt(f.bpl, 1)}`;

/** The listening score's loss term fitted to `rs` against PESQ, on a grid: concealed's weight 0–1, Bpl 2–100. */
const refitAudio = (rs: readonly HeardRow[]): AudioFit =>
  best(
    rs,
    PESQ,
    [0, 0.25, 0.5, 0.75, 1].flatMap((concealedWeight) => grid(2, 100, 40).map((bpl) => ({ concealedWeight, bpl }))),
    (fit) => (r) => heardScored(r, fit, false),
  );

function reportAudio(heard: HeardRow[]) {
  const columns = ['content', 'case', 'family', 'ts', 'score', 'pesq', 'loopOffsetS', 'correlation', 'error'] as const;
  const csvRow = (r: HeardRow) =>
    [
      ...columns.map((k) => (k === 'error' ? JSON.stringify(r.error ?? '') : (r[k] ?? ''))),
      ...AUDIO_INPUTS.map((f) => r.inputs[f] ?? ''),
    ].join(',');
  writeFileSync(join(OUT, 'heard.csv'), [[...columns, ...AUDIO_INPUTS].join(','), ...heard.map(csvRow)].join('\n') + '\n');
  plot(
    'score-vs-pesq.svg',
    'Audio score against PESQ, per 5-s window',
    heard,
    { label: 'PESQ, wideband MOS-LQO', min: 1, max: 5, value: (r) => r.pesq },
    { label: 'rtcscope audio score (E-model), 1–5', score: (r) => r.score },
  );
  const saidHeard = (a: Agreement) =>
    `${a.n} windows (score ${a.scoreRange?.map((x) => fmt(x)).join('–')}, PESQ ${a.referenceRange?.map((x) => fmt(x)).join('–')}); against PESQ Spearman ${fmt(a.spearman)}, Pearson ${fmt(a.pearson)}, MAE ${fmt(a.mae)} on 1–5`;
  const drift = Math.max(0, ...heard.map((r) => Math.abs((heardScored(r, SHIPPED_AUDIO, true) ?? r.score) - r.score)));
  const table = (title: string, score?: (r: HeardRow) => number | null) => {
    console.log(`\n${title}:`);
    const rows = agreementTable(heard, PESQ, score);
    console.log(`  overall: ${saidHeard(rows[0]!.agreement)}`);
    for (const row of rows.slice(1))
      console.log(`  ${row.name}${row.over === 'family' ? ' (with the clean calls)' : ''}: ${saidHeard(row.agreement)}`);
  };
  table(
    `score of the received audio (the E-model, as shipped) against what was heard (PESQ wideband; windows in ${OUT}; recomputed from their inputs, ${fmt(drift, 3)} at most from the scores the run stored)`,
  );
  // PESQ is a listening test: it cannot hear the delay the E-model charges a conversation for.
  table("its listening part (the same, without the delay's impairment)", (r) => heardScored(r, SHIPPED_AUDIO, false));
  reportLiveKit(heard, PESQ, 'PESQ', 3, (r) => r.score);
  const inRun = [...new Set(heard.map((r) => r.content))];
  if (inRun.length < 2) return;
  console.log(`\nthe listening part's loss refitted on one content (voice), judged on the other (shipped: ${fitSaid(SHIPPED_AUDIO)}):`);
  for (const content of inRun) {
    const [fit, held] = [heard.filter((r) => r.content === content), heard.filter((r) => r.content !== content)];
    const refitted = refitAudio(fit);
    const on = (rs: readonly HeardRow[], f: AudioFit) => saidHeard(agreementOf(rs, PESQ, (r) => heardScored(r, f, false)));
    console.log(
      `  fitted on ${content}: ${fitSaid(refitted)}; on the rest, shipped: ${on(held, SHIPPED_AUDIO)}; refitted: ${on(held, refitted)}; overall, refitted: ${on(heard, refitted)}`,
    );
  }
}

/** Stores the run in a project (its windows scored by the shipped model), for the dashboard's plots. */
async function upload({ seen: all, heard }: Measured, url: string, key: string) {
  const body: CalibrationUpload = {
    setup: {
      sender: 'chromium',
      receiver: RECEIVER,
      codec: 'VP8',
      width: 640,
      height: 360,
      fps: 30,
      callS: CALL_S,
      scoreModel: `video: ${modelSaid(VIDEO_MODEL)}; audio: the E-model, ${fitSaid(SHIPPED_AUDIO)}`,
    },
    windows: all.map((r) => ({
      content: r.content,
      case: r.case,
      family: r.family,
      ts: r.ts,
      score: shipped(r),
      vmaf: r.vmaf,
      ssim: r.ssim,
      psnr: r.psnr,
      frozenShare: r.frozenShare,
      skipped: r.skipped,
    })),
    heard: heard.map((r) => ({
      content: r.content,
      case: r.case,
      family: r.family,
      ts: r.ts,
      score: r.score,
      pesq: r.pesq,
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

const from = process.env.BENCH_QUALITY_FROM;
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
    seen: JSON.parse(readFileSync(windowsJson, 'utf8')) as Row[],
    heard: existsSync(heardJson) ? (JSON.parse(readFileSync(heardJson, 'utf8')) as StoredHeardRow[]).map(withMissed) : [],
  };
}
const rows = from ? stored(from) : await measureAll();
mkdirSync(OUT, { recursive: true });
reportVideo(rows.seen);
if (rows.heard.length) reportAudio(rows.heard);
if (process.env.BENCH_QUALITY_UPLOAD) await upload(rows, process.env.BENCH_QUALITY_UPLOAD, process.env.BENCH_QUALITY_KEY ?? '');
process.exit(0);
