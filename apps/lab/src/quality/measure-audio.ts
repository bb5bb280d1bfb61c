import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alignInLoop, type LoopAlignment, loopCut } from '@rtcscope/reference-quality';
import type { AudioRecording } from './audio-recorder.js';
import { decode, REFERENCE_RATE, type SpeechLoop } from './speech.js';

/** One window of received audio against the speech sent. */
export interface HeardQuality {
  ts: number;
  /** PESQ wideband MOS-LQO (1.04–4.64); null where PESQ could not judge the window (`error` says why). */
  pesq: number | null;
  /** ViSQOL v3's speech MOS-LQO (1–5), which hears a jitter buffer's time-stretching as listeners do; null where it could not judge. */
  visqol: number | null;
  error: string | null;
  /** Where in the speech loop the window was aligned (s), and how well it matched there (normalised cross-correlation). */
  loopOffsetS: number;
  correlation: number;
  /** Its loudness against the speech's there, dB: a stretch gone silent reads far under 0. */
  levelDb: number;
}

export interface AudioMeasureOptions {
  windowMs: number;
  dir: string;
  /** Resamples what was heard to the speech's rate where they differ (scripts/install-quality-tools.sh). */
  ffmpeg?: string;
  /** PESQ and ViSQOL where given (16-kHz speech only): scripts/listening.py run by the Python install-quality-tools.sh sets up. */
  listening?: { python: string; script: string };
}

/**
 * Each window starting at `starts` (epoch ms): what the page heard then, at the speech's rate, aligned in
 * the loop (alignInLoop), and where asked its PESQ and ViSQOL against the stretch of the loop it was
 * aligned with (each then aligns the speech within it on its own). A window the recording does not wholly cover is left out.
 */
export async function measureAudio(
  speech: SpeechLoop,
  heard: AudioRecording,
  starts: readonly number[],
  o: AudioMeasureOptions,
): Promise<HeardQuality[]> {
  const rate = speech.rate;
  const samples = await atRate(heard, rate, o);
  const length = (o.windowMs * rate) / 1000;
  const found = starts
    .map((ts) => ({ ts, from: Math.round(((ts - heard.zeroAt!) * rate) / 1000) }))
    .filter((w) => w.from >= 0 && w.from + length <= samples.length)
    .map((w) => {
      const deg = samples.slice(w.from, w.from + length);
      return { ...w, deg, aligned: alignInLoop(speech.reference, deg, rate) };
    });
  const cuts = agreeWithCall(found, speech, rate).map((w, k) => {
    const { deg, aligned } = w;
    const [refPath, degPath] = [join(o.dir, `ref-${k}.f32`), join(o.dir, `deg-${k}.f32`)];
    const ref = loopCut(speech.reference, aligned.offset, length);
    writeFileSync(refPath, ref);
    writeFileSync(degPath, deg);
    const energy = (x: Float32Array) => x.reduce((a, v) => a + v * v, 0);
    return {
      ts: w.ts,
      loopOffsetS: aligned.offset / rate,
      correlation: aligned.correlation,
      levelDb: 10 * Math.log10(Math.max(1e-12, energy(deg)) / Math.max(1e-12, energy(ref))),
      pair: { ref: refPath, deg: degPath },
    };
  });
  if (!cuts.length) return [];
  if (o.listening && rate !== REFERENCE_RATE) throw new Error(`PESQ and ViSQOL judge wideband speech at ${REFERENCE_RATE} Hz, not ${rate}`);
  const results: Listened[] = o.listening
    ? await listen(
        o.listening,
        cuts.map((c) => c.pair),
      )
    : cuts.map(() => ({ pesq: null, visqol: null, error: 'no listening measure asked for' }));
  return cuts.map((c, k) => {
    const { pair: _, ...measured } = c;
    return { ...measured, ...results[k]! };
  });
}

/** How far a window's alignment may stray from where the call's other windows put it, s. */
const AGREE_S = 0.3;

/**
 * The loop plays on at one pace, so each window's offset less the time since the first is the same but
 * for the jitter buffer's few tens of ms: where most windows agree on it, a window that does not (mostly
 * lost, it matched noise somewhere else) is searched again only near where the others put it.
 */
function agreeWithCall<W extends { from: number; deg: Float32Array; aligned: LoopAlignment }>(
  windows: W[],
  speech: SpeechLoop,
  rate: number,
): W[] {
  const period = speech.reference.length;
  const wrap = (x: number) => ((x % period) + period) % period;
  const apart = (a: number, b: number) => Math.min(wrap(a - b), wrap(b - a));
  const anchors = windows.map((w) => wrap(w.aligned.offset - w.from));
  const near = (a: number) => anchors.filter((b) => apart(a, b) <= AGREE_S * rate).length;
  const anchor = anchors.reduce((best, a) => (near(a) > near(best) ? a : best), anchors[0] ?? 0);
  if (near(anchor) * 2 < windows.length) return windows;
  return windows.map((w, k) =>
    apart(anchors[k]!, anchor) <= AGREE_S * rate
      ? w
      : { ...w, aligned: alignInLoop(speech.reference, w.deg, rate, { offset: wrap(anchor + w.from), withinS: AGREE_S }) },
  );
}

/** The recording at `rate`: as it is where the page heard at that rate, else resampled by ffmpeg. */
async function atRate(heard: AudioRecording, rate: number, o: AudioMeasureOptions): Promise<Float32Array> {
  if (heard.rate === rate) return heard.samples();
  if (!o.ffmpeg) throw new Error(`the page heard at ${heard.rate} Hz and the speech is at ${rate}: resampling needs an ffmpeg`);
  const raw = join(o.dir, 'heard.f32');
  writeFileSync(raw, heard.samples());
  return decode(o.ffmpeg, ['-f', 'f32le', '-ar', String(heard.rate), '-ac', '1', '-i', raw], rate);
}

type Listened = Pick<HeardQuality, 'pesq' | 'visqol' | 'error'>;

function listen(tool: { python: string; script: string }, pairs: { ref: string; deg: string }[]): Promise<Listened[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(tool.python, [tool.script], { maxBuffer: 1 << 24 }, (err, stdout) => {
      if (err) reject(new Error(`PESQ and ViSQOL failed: ${err.message}`));
      else resolve(JSON.parse(stdout) as Listened[]);
    });
    child.stdin!.end(JSON.stringify({ pairs }));
  });
}
