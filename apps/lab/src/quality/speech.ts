import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { syllables } from '@rtcscope/reference-quality';
import type { ClipContent } from './clip.js';

const run = promisify(execFile);

/**
 * Speech the sender's fake microphone plays in a loop (Chromium's `--use-file-for-fake-audio-capture`):
 * Harvard sentences (IEEE 1969, the phonetically balanced lists speech-quality tests read), spoken by
 * Debian's espeak-ng, each content with its own voice: men's with the talking head and the dim room,
 * women's with the busy picture and the shared screen.
 */
const SENTENCES = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  'It is easy to tell the depth of a well.',
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
  'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.',
  'The hogs were fed chopped corn and garbage.',
];
const VOICES: Record<ClipContent, string> = { talking: 'en-us+m3', busy: 'en+f3', screen: 'en-us+f2', lowlight: 'en+m5' };

/** What the microphone plays (a 48-kHz, 16-bit WAV), and the same loop as the received audio is judged against. */
export interface SpeechLoop {
  path: string;
  /** One pass of the loop at `rate`, a whole number of 10-ms frames long. */
  reference: Float32Array;
  /** 16 kHz where spoken (as PESQ's wideband mode reads it); 48 kHz for the syllables. */
  rate: number;
  seconds: number;
}

export const REFERENCE_RATE = 16_000;
const SEND_RATE = 48_000;

/** Speaks the sentences into `path`; `ffmpeg` resamples (scripts/install-quality-tools.sh). */
export async function writeSpeechLoop(path: string, content: ClipContent, ffmpeg: string): Promise<SpeechLoop> {
  const spoken = `${path}.espeak.wav`;
  await run('espeak-ng', ['-v', VOICES[content], '-s', '150', '-g', '6', '-w', spoken, SENTENCES.join(' ')]);
  const at48 = await decode(ffmpeg, ['-i', spoken], SEND_RATE);
  // A whole number of 10-ms frames at either rate, so the loop at 16 kHz is exactly the one sent.
  const loop = new Float32Array(Math.ceil(at48.length / 480) * 480);
  loop.set(at48);
  const raw = `${path}.f32`;
  writeFileSync(raw, loop);
  const f32 = ['-f', 'f32le', '-ar', String(SEND_RATE), '-ac', '1', '-i', raw];
  await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', ...f32, '-c:a', 'pcm_s16le', path]);
  const reference = new Float32Array(loop.length / 3);
  reference.set((await decode(ffmpeg, f32, REFERENCE_RATE)).subarray(0, reference.length));
  return { path, reference, rate: REFERENCE_RATE, seconds: loop.length / SEND_RATE };
}

/** Speech-like syllables (`syllables`) instead, where no espeak-ng or ffmpeg is installed: what the test suite sends. */
export function writeSyllableLoop(path: string, seconds: number): SpeechLoop {
  const reference = syllables(Math.round(seconds * 100) / 100, SEND_RATE);
  writeWav(path, reference, SEND_RATE);
  return { path, reference, rate: SEND_RATE, seconds: reference.length / SEND_RATE };
}

/** Mono 16-bit PCM in a RIFF WAVE file, as Chromium's fake microphone reads it. */
function writeWav(path: string, samples: Float32Array, rate: number) {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((v, k) => data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), 2 * k));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([header, data]));
}

/** Mono 32-bit float samples at `rate` of what ffmpeg reads with `input`. */
export async function decode(ffmpeg: string, input: readonly string[], rate: number): Promise<Float32Array> {
  const { stdout } = await run(
    ffmpeg,
    ['-hide_banner', '-loglevel', 'error', ...input, '-ac', '1', '-ar', String(rate), '-f', 'f32le', '-'],
    { encoding: 'buffer', maxBuffer: 1 << 30 },
  );
  return new Float32Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.byteLength));
}
