// One calibration call: run in the lab, recorded at both ends, measured against what was sent, and each
// window beside the score rtcscope stored for it and the inputs that score (and a refit of it) reads.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AudioRecording,
  type ClipContent,
  type HeardQuality,
  type LabCall,
  measureAudio,
  measureVideo,
  type NumberedClip,
  runScenario,
  type SpeechLoop,
  VideoRecording,
  type WindowQuality,
} from '@rtcscope/lab';
import { mean } from '@rtcscope/metrics';
import type { CallDetail, CallDiagnosis, Series } from '@rtcscope/protocol';
import { missedPct } from '@rtcscope/diagnosis';
import { parseScenario } from '@rtcscope/scenario';
import { type CallPlan, setupName } from './design.js';
import type { LabServer } from '../lab-server.js';
import { liveKitSaid, type LiveKitSaid } from './livekit.js';

export const WINDOW_MS = 5000;

/** What the video score of a window is made of: its stream's means over the window (the inputs a refit of the score reads). */
export const INPUTS = ['kbps', 'fps', 'width', 'height', 'lossPct', 'freezeMs', 'qp'] as const;
export type Inputs = Record<(typeof INPUTS)[number], number | null>;
/**
 * What the sender's stats said of the same video over the window: the encoder's rate, frame rate, coded
 * size, mean quantizer and time per frame, the camera's frame rate, and why it was limited (0 none, 1 CPU,
 * 2 bandwidth, 3 other) — what a score that knows the content reads (docs/scores.md).
 */
export const SENDER_INPUTS = ['kbps', 'fps', 'width', 'height', 'qp', 'encodeMs', 'captureFps', 'qualityLimitation'] as const;
export type SenderInputs = Record<(typeof SENDER_INPUTS)[number], number | null>;
/** And the audio score's (the E-model reads loss, the round trip and the jitter buffer; what was concealed, beside). */
export const AUDIO_INPUTS = ['lossPct', 'rttMs', 'jitterBufferMs', 'concealedPct', 'concealmentEventMs', 'packets'] as const;
/**
 * Each second's missed share as the score reads it (`missedPct`: an outage's second whole, else the
 * concealed share), and the same read as packets lost: a window's mean of a second read any share of each
 * way between is that share of each mean, which the loss refit weighs.
 */
export const missed = (second: Record<(typeof AUDIO_INPUTS)[number], number | null>) => ({
  missedPct: missedPct(second),
  missedAsLostPct: missedPct(second, 0),
});
export type AudioInputs = Record<(typeof AUDIO_INPUTS)[number] | keyof ReturnType<typeof missed>, number | null>;

/** Which call a window is of. */
export interface CallOf {
  setup: string;
  receiver: string;
  height: number;
  codec: string;
  content: ClipContent;
  case: string;
  family: string;
  run: number;
}

/** One window of one call: our score of p1's received video, and what p1 really saw. */
export interface Row extends WindowQuality, LiveKitSaid, CallOf {
  score: number;
  inputs: Inputs;
  /** Null in runs before the sender's side was kept, or where the sender's stream had no sample in the window. */
  sender?: SenderInputs | null;
}

/** One window of one call: our score of p1's received audio, and what p1 really heard. */
export interface HeardRow extends HeardQuality, LiveKitSaid, CallOf {
  score: number;
  inputs: AudioInputs;
}

/** What a call measured: the windows of p1's received video and audio. */
export interface Measured {
  seen: Row[];
  heard: HeardRow[];
}

/** What runs the calls: the server they report to, the ffmpeg and Python that measure, a scratch folder. */
export interface Bench {
  lab: LabServer;
  ffmpeg: string;
  python: string;
  dir: string;
  scripts: string;
  callS: number;
  skipS: number;
}

const fmt = (v: number | null, d = 2) => (v === null ? '–' : v.toFixed(d));

export async function runCall(
  b: Bench,
  clip: NumberedClip,
  speech: SpeechLoop,
  p: CallPlan<ClipContent>,
  record = true,
): Promise<Measured> {
  const { setup, case: c } = p;
  // A 720p picture every 200 ms: the same windows measured with half the pictures moved out of the page.
  const tickMs = clip.height > 400 ? 200 : 100;
  const scenario = parseScenario({
    id: `quality-${c.name}-${clip.content}`,
    title: `Quality: ${c.name} on ${clip.content}`,
    participants: {
      count: 2,
      ...(setup.sfu ? { topology: 'sfu', sfu: setup.sfu } : { topology: 'pair' }),
      codec: setup.codec,
      video: { width: clip.width, height: clip.height, fps: clip.fps },
      ...(c.cores ? { cpu: [c.cores, null] } : {}),
      // The sender stays in Chromium: its fake camera plays the clip (Firefox's fake camera is its own pattern).
      ...(setup.receiver === 'firefox' ? { browsers: ['chromium', 'firefox'] } : {}),
    },
    links: { mode: 'per-participant', uplink: {}, downlink: {} },
    schedule: c.set ? [{ at: 0, on: 'uplink', participant: 0, set: c.set }] : [],
    durationS: b.callS,
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
    repetition: p.run,
    camera: clip.path,
    microphone: speech.path,
    firefoxHears: true,
    onCall: (call: LabCall) => {
      for (const s of [b.skipS, b.callS - 2])
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
          VideoRecording.start(call.page(1), 'received', { sourceHeight: clip.height, tickMs }),
          // What was heard, where the receiving browser can record it (an Error saying why not).
          AudioRecording.start(call.page(1)).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))),
        ]);
    },
  });
  const [early, late] = await Promise.all(decoded);
  const fps = ((late!.frames - early!.frames) * 1000) / (late!.ms - early!.ms);
  const label = `${setupName(setup)} ${clip.content} ${c.name} run ${p.run}`;
  if (!recordings) {
    console.log(`${label}, nothing recorded: p1 decoded ${fps.toFixed(1)} fps`);
    return { seen: [], heard: [] };
  }
  const [sent, seen, listened] = await (recordings as Promise<[VideoRecording, VideoRecording, AudioRecording | Error]>);
  await Promise.all([sent.stop(), seen.stop(), listened instanceof AudioRecording ? listened.stop() : null]);
  const work = join(b.dir, 'measure');
  mkdirSync(work, { recursive: true });
  const windows = await measureVideo(clip, sent, seen, { windowMs: WINDOW_MS, dir: work, ffmpeg: b.ffmpeg });
  const streams = await callStreams(b, run.callId);
  const scores = await windowScores(b, run.callId, 'video', INPUTS);
  const audioScores = await windowScores(b, run.callId, 'audio', AUDIO_INPUTS, missed);
  const senderSide = await senderWindows(b, run.callId, streams, [...scores.keys()]);
  const from = run.startedAt + b.skipS * 1000;
  const said = setup.sfu ? await liveKitSaid(b.lab, run.callId, WINDOW_MS) : () => ({});
  const of: CallOf = {
    setup: setupName(setup),
    receiver: setup.receiver,
    height: setup.height,
    codec: setup.codec,
    content: clip.content,
    case: c.name,
    family: c.family,
    run: p.run,
  };
  const heard = (
    listened instanceof Error
      ? []
      : await measureAudio(
          speech,
          listened,
          [...audioScores.keys()].filter((ts) => ts >= from),
          { windowMs: WINDOW_MS, dir: work, ffmpeg: b.ffmpeg, listening: { python: b.python, script: join(b.scripts, 'listening.py') } },
        )
  ).map((h): HeardRow => ({ ...h, ...of, ...audioScores.get(h.ts)!, ...said(h.ts) }));
  const full = (WINDOW_MS / tickMs) * 0.8;
  const mine = windows
    .filter((w) => w.ts >= from && w.ticks >= full && scores.has(w.ts))
    .map((w): Row => ({ ...w, ...of, ...scores.get(w.ts)!, sender: senderSide.get(w.ts) ?? null, ...said(w.ts) }));
  const avg = <R>(rs: readonly R[], f: (r: R) => number | null | undefined) =>
    mean(rs.map(f).filter((v): v is number => v !== null && v !== undefined));
  const heardBusyMs = listened instanceof AudioRecording ? listened.busyMs : 0;
  console.log(
    `${label}: ${mine.length} windows, score ${fmt(avg(mine, (r) => r.score))}, VMAF ${fmt(
      avg(mine, (r) => r.vmaf),
      1,
    )}, SSIM ${fmt(
      avg(mine, (r) => r.ssim),
      3,
    )}, frozen ${fmt(
      avg(mine, (r) => 100 * r.frozenShare),
      1,
    )} %, received ${fmt(
      avg(mine, (r) => r.inputs.height),
      0,
    )}p at QP ${fmt(
      avg(mine, (r) => r.inputs.qp),
      1,
    )}, sent at QP ${fmt(
      avg(mine, (r) => r.sender?.qp),
      1,
    )}; p1 decoded ${fps.toFixed(1)} fps, ${seen.unread} frames unread${seen.lastError ? ` (${seen.lastError})` : ''}; recording took ${(
      (seen.busyMs + heardBusyMs) /
      b.callS
    ).toFixed(1)} ms a second in p1's page, ${(sent.busyMs / b.callS).toFixed(1)} in p0's`,
  );
  if (listened instanceof Error) console.log(`${label}, audio: not recorded (${listened.message})`);
  else {
    const unjudged = heard.find((h) => h.error);
    console.log(
      `${label}, audio: ${heard.length} windows, score ${fmt(avg(heard, (r) => r.score))}, ViSQOL ${fmt(avg(heard, (r) => r.visqol))}, PESQ ${fmt(
        avg(heard, (r) => r.pesq),
      )}, aligned at correlation ${fmt(avg(heard, (r) => r.correlation))}, loss ${fmt(
        avg(heard, (r) => r.inputs.lossPct),
        1,
      )} %, concealed ${fmt(
        avg(heard, (r) => r.inputs.concealedPct),
        1,
      )} %${unjudged ? `; not all judged (${unjudged.error})` : ''}`,
    );
  }
  return { seen: mine, heard };
}

type StreamInfo = CallDetail['participants'][number]['connections'][number]['streams'][number];

/** The call's streams with whose they are. */
async function callStreams({ lab: { api } }: Bench, callId: string): Promise<(StreamInfo & { participant: string })[]> {
  const detail = await api<CallDetail>(`/calls/${callId}`);
  return detail.participants.flatMap((p) => p.connections.flatMap((c) => c.streams.map((s) => ({ ...s, participant: p.id }))));
}

/** Each window's means of `fields` over one stream's seconds in it. */
function windowMeans<F extends string>(
  points: readonly { ts: number; values: Record<F, number | null> }[],
  ts: number,
): Record<F, number | null> | null {
  const mine = points.filter((p) => p.ts >= ts && p.ts < ts + WINDOW_MS).map((p) => p.values);
  if (!mine.length) return null;
  const keys = Object.keys(mine[0]!) as F[];
  return Object.fromEntries(keys.map((f) => [f, mean(mine.map((v) => v[f]).filter((v): v is number => v !== null))])) as Record<
    F,
    number | null
  >;
}

async function seriesOf<F extends string>(
  { lab: { api } }: Bench,
  callId: string,
  streamIds: readonly number[],
  fields: readonly F[],
): Promise<Map<number, { ts: number; values: Record<F, number | null> }[]>> {
  const series = await api<Series>(`/calls/${callId}/series?maxPoints=10000&fields=${fields.join(',')}`);
  return new Map(
    streamIds.map((id) => [
      id,
      series.streams
        .filter((p) => p.id === id)
        .map((p) => ({ ts: p.ts, values: Object.fromEntries(fields.map((f, k) => [f, p.v[k] ?? null])) as Record<F, number | null> })),
    ]),
  );
}

/**
 * p0's sent video over each window: of its sent video streams (one, or a layer each under simulcast), the
 * one whose coded height is nearest the height p1 received.
 */
async function senderWindows(
  b: Bench,
  callId: string,
  streams: readonly (StreamInfo & { participant: string })[],
  windows: readonly number[],
): Promise<Map<number, SenderInputs>> {
  const sent = streams.filter((s) => s.participant === 'p0' && s.direction === 'out' && s.kind === 'video');
  const received = streams.find((s) => s.participant === 'p1' && s.direction === 'in' && s.kind === 'video');
  if (!sent.length || !received) return new Map();
  const series = await seriesOf(b, callId, [...sent.map((s) => s.id), received.id], SENDER_INPUTS);
  const out = new Map<number, SenderInputs>();
  for (const ts of windows) {
    const height = windowMeans(series.get(received.id)!, ts)?.height ?? null;
    const layers = sent.map((s) => windowMeans(series.get(s.id)!, ts)).filter((m): m is SenderInputs => m !== null);
    const nearest = layers.sort((x, y) => Math.abs((x.height ?? 0) - (height ?? 0)) - Math.abs((y.height ?? 0) - (height ?? 0)))[0];
    if (nearest) out.set(ts, nearest);
  }
  return out;
}

/** The score of p1's received video or audio per window and the means of `fields` over it, once the call's diagnosis has stored its windows. */
async function windowScores<F extends string, D extends string = never>(
  b: Bench,
  callId: string,
  kind: 'video' | 'audio',
  fields: readonly F[],
  derive?: (second: Record<F, number | null>) => Record<D, number | null>,
): Promise<Map<number, { score: number; inputs: Record<F | D, number | null> }>> {
  const { api } = b.lab;
  // The last window is scored when the call ends: its participants silent for CALL_IDLE_TIMEOUT_S.
  for (let tries = 0; ; tries++) {
    const d = await api<CallDiagnosis>(`/calls/${callId}/diagnosis`);
    const stream = d.scores?.streams.find((s) => s.participantId === 'p1' && s.kind === kind);
    if (stream && (tries >= 20 || (await api<{ call: { endedAt: number | null } }>(`/calls/${callId}`)).call.endedAt !== null)) {
      const seconds = (await seriesOf(b, callId, [stream.streamId], fields)).get(stream.streamId)!.map((p) => ({
        ts: p.ts,
        values: { ...p.values, ...derive?.(p.values) } as Record<F | D, number | null>,
      }));
      return new Map(
        stream.windows.map((w) => [w.ts, { score: w.mos, inputs: windowMeans(seconds, w.ts) ?? ({} as Record<F | D, number | null>) }]),
      );
    }
    if (tries >= 20) throw new Error(`${callId}: no score of p1's received ${kind} after ${tries} tries`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
