import { gzipSync } from 'node:zlib';
import { RECORDING_LIMITS } from '../src/recordings/limits.js';

/** A file made to cost the server far more than its size, and the refusal it must get. */
export interface ImportBomb {
  name: string;
  file: Buffer;
  refusal: RegExp;
}

const series = (values: string) => `{"statsType":"transport","startTime":1,"endTime":2,"values":${values}}`;
const dump = (stats: string) => `{"PeerConnections":{"1-1":{"stats":{${stats}}}}}`;

/** gzip members one after another are one gzip file to a reader: a few kB unzip to as much as asked. */
function gzipOf(head: string, filler: string, bytes: number): Buffer {
  const piece = 4_000_000;
  const member = gzipSync(filler.repeat(Math.ceil(piece / filler.length)).slice(0, piece));
  return Buffer.concat([gzipSync(head), ...Array.from({ length: Math.ceil(bytes / piece) }, () => member)]);
}

/**
 * The files a security review made to exhaust the import (issue 32), made at run time: each is refused
 * at the bound it crosses, naming it.
 */
export function importBombs(): ImportBomb[] {
  const smallObjects = (bytes: number) => `[${'{},'.repeat(bytes / 3)}{}]`;
  return [
    {
      name: 'plain 8 MB JSON: one series of small objects',
      file: Buffer.from(dump(`"T01-x":${series(smallObjects(8_000_000))}`)),
      refusal: /holds more than 200000 items in one value/,
    },
    {
      name: 'plain 8 MB JSON: a connection of long series',
      file: Buffer.from(
        dump(
          Array.from(
            { length: 41 },
            (_, i) => `"T01-f${i}":${series(JSON.stringify(JSON.stringify(new Array(RECORDING_LIMITS.seriesValues).fill(1))))}`,
          ).join(','),
        ),
      ),
      refusal: /holds more than 4000000 values/,
    },
    {
      name: '65 kB gzip, 64 MB of small objects unzipped',
      file: gzipOf('{"PeerConnections":{"1-1":{"stats":{"T01-x":{"values":[', '{},', 64_000_000),
      refusal: /holds more than 200000 items in one value|unzips to more than 100 times its size/,
    },
    {
      name: '2 MB gzip, 2 GB of whitespace unzipped',
      file: gzipOf('{"PeerConnections":', ' ', 2_000_000_000),
      refusal: /unzips to more than 100 times its size/,
    },
    {
      name: 'rtcstats, one long line, gzipped',
      file: gzipOf('RTCStatsDump\n{"fileFormat":3}\n["getStats","PC_0",{', '"a":{},', 64_000_000),
      refusal: /unzips to more than 100 times its size|line 3: is longer than/,
    },
    {
      name: 'rtcstats, one long line, plain',
      file: Buffer.from(`RTCStatsDump\n{"fileFormat":3}\n["getStats","PC_0",{${'"a":{},'.repeat(1_000_000)}`),
      refusal: /line 3: is longer than 4000000 characters/,
    },
    {
      name: '80 kB nested 40,000 deep',
      file: Buffer.from(`{"PeerConnections":${'['.repeat(40_000)}${']'.repeat(40_000)}}`),
      refusal: /nests deeper than 32 levels/,
    },
    {
      name: 'a 5 MB string',
      file: Buffer.from(`{"UserAgent":"${'x'.repeat(5_000_000)}"}`),
      refusal: /holds a string or number longer than 4000000 characters/,
    },
  ];
}
