import type { Readable } from 'node:stream';
import { RecordingEncoder } from '@rtcscope/sdk/recording';
import { RecordingError } from './errors.js';
import { readRtcstats } from './rtcstats.js';
import { openRecording, type RecordingFormat } from './source.js';
import { readWebrtcInternals } from './webrtc-internals.js';

export interface ReadRecording {
  format: RecordingFormat;
  /** SHA-256 of the file's bytes as uploaded. */
  hash: Buffer;
  bytes: number;
  userAgent: string | null;
  /** The recording as the batches its participant's monitor would have sent. */
  encoder: RecordingEncoder;
}

/** Reads a recording whole, as it streams in, into the samples and events a monitor would have sent. */
export async function readRecording(input: Readable, maxBytes: number): Promise<ReadRecording> {
  const source = await openRecording(input, maxBytes);
  const encoder = new RecordingEncoder();
  let userAgent: string | null = null;
  const sink = {
    userAgent: (ua: string) => void (userAgent ??= ua),
    snapshot: encoder.snapshot.bind(encoder),
    event: encoder.event.bind(encoder),
  };
  await (source.format === 'webrtc-internals' ? readWebrtcInternals(source.text, sink) : readRtcstats(source.text, sink));
  if (!encoder.rowCount) throw new RecordingError('file', 'holds no getStats samples of any peer connection');
  return { format: source.format, hash: source.digest(), bytes: source.bytes(), userAgent, encoder };
}
