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

/** The same for @jitsi/rtcstats' lines: a `getstats` entry's fourth item is its time (a sequence number may follow). */
export function rtcstatsUntil(lines: string[]): number {
  const times = lines.filter((l) => l.startsWith('["getstats",')).map((l) => (JSON.parse(l) as unknown[])[3]);
  return Math.max(-Infinity, ...times.filter((t): t is number => typeof t === 'number'));
}
