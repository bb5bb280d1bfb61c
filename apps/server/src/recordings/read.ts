import type { Readable, Writable } from 'node:stream';
import type { Batch } from '@rtcscope/protocol';
import { RecordingEncoder } from '@rtcscope/sdk/recording';
import { RecordingError } from './errors.js';
import { readRtcstats } from './rtcstats.js';
import { openRecording, type RecordingFormat } from './source.js';
import type { RecordingSink } from './sink.js';
import { readWebrtcInternals } from './webrtc-internals.js';

export interface ReadRecording {
  format: RecordingFormat;
  /** SHA-256 of the file's bytes as uploaded. */
  hash: Buffer;
  bytes: number;
  userAgent: string | null;
  /** Stream and connection samples made. */
  samples: number;
}

/**
 * Reads a recording as it streams in into the batches its participant's monitor would have sent,
 * handing each on as it fills (the next waits for it). `copy`, if given, gets the file's bytes as
 * they came, to read it again.
 */
export async function readRecording(input: Readable, onBatch: (batch: Batch) => void | Promise<void>, copy?: Writable): Promise<ReadRecording> {
  const source = await openRecording(input, copy);
  const encoder = new RecordingEncoder();
  let userAgent: string | null = null;
  const handOn = async () => {
    for (const batch of encoder.ready()) await onBatch(batch);
  };
  const sink: RecordingSink = {
    userAgent: (ua) => void (userAgent ??= ua),
    snapshot: (connection, ts, snapshot) => {
      encoder.snapshot(connection, ts, snapshot);
      return handOn();
    },
    event: (connection, ts, type, detail) => {
      encoder.event(connection, ts, type, detail);
      return handOn();
    },
  };
  await (source.format === 'webrtc-internals' ? readWebrtcInternals(source.text, sink) : readRtcstats(source.text, sink));
  if (!encoder.rowCount) throw new RecordingError('file', 'holds no getStats samples of any peer connection');
  for (const batch of encoder.finish()) await onBatch(batch);
  return { format: source.format, hash: source.digest(), bytes: source.bytes(), userAgent, samples: encoder.rowCount };
}
