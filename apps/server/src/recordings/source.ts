import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { RecordingError } from './errors.js';
import { RECORDING_LIMITS } from './limits.js';

export type RecordingFormat = 'webrtc-internals' | 'rtcstats';

/**
 * A recording's text, unzipped where it was gzipped (Chrome downloads its dumps gzipped), its format
 * told from how it starts, and the hash of its bytes as they came, taken as they stream through (and
 * written to `copy`, if given, to be read again). More than `RECORDING_LIMITS.uploadBytes` as sent, or
 * `textBytes` unzipped, stops the reading with an error.
 */
export async function openRecording(
  input: Readable,
  copy?: Writable,
): Promise<{ format: RecordingFormat; text: Readable; digest: () => Buffer; bytes: () => number }> {
  const hash: Hash = createHash('sha256');
  let bytes = 0;
  const counted = input.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > RECORDING_LIMITS.uploadBytes)
          return done(new RecordingError('file', `is over ${RECORDING_LIMITS.uploadBytes / 1e6} MB, the largest recording taken`));
        hash.update(chunk);
        if (!copy || copy.write(chunk)) done(null, chunk);
        else copy.once('drain', () => done(null, chunk));
      },
    }),
  );
  input.on('error', (err) => counted.destroy(err));
  const raw = await peek(counted);
  const gzipped = raw.head[0] === 0x1f && raw.head[1] === 0x8b;
  const unzipped = gzipped ? unzip(raw.stream, () => bytes) : raw.stream;
  const text = await peek(unzipped).catch((err: unknown) => {
    throw err instanceof RecordingError ? err : new RecordingError('file', `is gzipped but does not unzip (${(err as Error).message})`);
  });
  const start = text.head.toString('utf8').trimStart();
  const format: RecordingFormat | null = start.startsWith('{')
    ? 'webrtc-internals'
    : start.startsWith('RTCStatsDump') || start.startsWith('[')
      ? 'rtcstats'
      : null;
  // rtcstats-server's dumps of the Jitsi servers' own stats (the Videobridge's, Jicofo's): JSON objects a line, the first an identity.
  if (/^\{"statsSessionId":[^\n]*"type":\s*"identity"/.test(start)) {
    throw new RecordingError(
      'line 1',
      "is an SFU's or signalling server's own stats as rtcstats-server keeps them (a Jitsi Videobridge's or Jicofo's), not a browser's recording of a call: import the participants' rtcstats files, or send the SFU's events to POST /api/v1/sfu/janus/events where it is Janus",
    );
  }
  if (!format && /^<(!doctype html|html)/i.test(start)) {
    throw new RecordingError(
      'line 1',
      'is a web page (Firefox\'s about:webrtc "Save Page" writes one): it holds each connection\'s stats of one moment, not series over the call, so there is nothing to chart; record the call with the rtcscope SDK, or with rtcstats, and import that',
    );
  }
  if (!format) {
    throw new RecordingError(
      'line 1',
      `is neither a webrtc-internals dump (a JSON object) nor an rtcstats file (RTCStatsDump, or JSON arrays a line): it starts ${JSON.stringify(start.slice(0, 40))}`,
    );
  }
  return { format, text: text.stream, digest: () => hash.digest(), bytes: () => bytes };
}

/**
 * The text of a gzipped stream, up to `RECORDING_LIMITS.textBytes` and `unzipRatio` times what was sent
 * so far: a small file that unzips to gigabytes stops within a second of reading.
 */
function unzip(stream: Readable, sent: () => number): Readable {
  let bytes = 0;
  const gunzip = createGunzip();
  const text = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > RECORDING_LIMITS.textBytes)
        return done(new RecordingError('file', `unzips to more than ${RECORDING_LIMITS.textBytes / 1e6} MB, the largest recording taken`));
      if (bytes > RECORDING_LIMITS.unzipFloorBytes + RECORDING_LIMITS.unzipRatio * sent()) {
        return done(
          new RecordingError(
            'file',
            `unzips to more than ${RECORDING_LIMITS.unzipRatio} times its size, which no recording does (a gzip bomb?)`,
          ),
        );
      }
      done(null, chunk);
    },
  });
  stream.on('error', (err) => text.destroy(err));
  gunzip.on('error', (err) => text.destroy(err));
  // Reading stops when the text is refused: nothing more is unzipped.
  text.on('close', () => gunzip.destroy());
  return stream.pipe(gunzip).pipe(text);
}

/** The first bytes of a stream (up to a chunk), and the whole stream still to read. */
async function peek(stream: Readable): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < 64) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(Buffer.from(next.value as Buffer));
    length += (next.value as Buffer).length;
  }
  if (!length) throw new RecordingError('file', 'is empty');
  const head = Buffer.concat(chunks);
  async function* rest() {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
  }
  return { head, stream: Readable.from(rest(), { objectMode: false }) };
}
