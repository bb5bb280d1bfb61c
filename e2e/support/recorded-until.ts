import { gunzipSync } from 'node:zlib';

/**
 * The newest stats time (ms since the epoch) a recording holds, read loosely from its text: a test waits
 * until a recording covers the window it compares rather than sleeping for a guess of how long that takes.
 */
export function webrtcInternalsUntil(file: Buffer): number {
  // Chromium gzips the dump it saves; the importer takes either.
  const dump = (file[0] === 0x1f && file[1] === 0x8b ? gunzipSync(file) : file).toString('utf8');
  const ends = [...dump.matchAll(/"endTime":\s*"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
  return Math.max(-Infinity, ...ends.filter(Number.isFinite));
}
