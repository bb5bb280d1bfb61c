import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { type Batch, decodeBatch, STREAM_FIELDS } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { EXPECTED, rtcstatsDump, type SyntheticRecording, webrtcInternalsDump } from '../../test/recordings.js';
import { RECORDING_LIMITS } from './limits.js';
import { readRecording } from './read.js';

const CALL: SyntheticRecording = { startMs: Date.UTC(2026, 10, 20, 12), seconds: 10, connections: 2, sendKbps: 800 };

/** A recording read, with the batches it made. */
const read = async (text: string | Buffer, chunk = 7_919) => {
  const bytes = Buffer.from(text);
  // Chunks of an odd size: tokens and lines are cut across them, as they are on the wire.
  const chunks = Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => bytes.subarray(i * chunk, (i + 1) * chunk));
  const batches: Batch[] = [];
  const recording = await readRecording(Readable.from(chunks), (b) => void batches.push(b));
  return { ...recording, batches };
};

/** Why a recording is refused. */
const refused = async (text: string | Buffer, chunk?: number) => {
  try {
    await read(text, chunk);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('read without an error');
};

/** Every sample of a read recording, by stream: direction, kind, and the field's values in time order. */
function valuesOf(recording: Awaited<ReturnType<typeof read>>) {
  const streams = new Set<number>();
  const conns = new Set<number>();
  const kinds = new Map<number, string>();
  const out = new Map<string, Record<string, (number | null)[]>>();
  for (const batch of recording.batches) {
    const decoded = decodeBatch(batch, streams, conns);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.error));
    for (const s of batch.streams ?? []) {
      streams.add(s.i);
      kinds.set(s.i, `${s.direction} ${s.kind}`);
    }
    for (const c of batch.conns ?? []) conns.add(c.i);
    for (const row of decoded.value.streamRows) {
      const key = kinds.get(row.index)!;
      const fields = out.get(key) ?? {};
      STREAM_FIELDS.forEach((f, k) => (fields[f.name] ??= []).push(row.values[k] ?? null));
      out.set(key, fields);
    }
  }
  return out;
}

function expectTheCall(recording: Awaited<ReturnType<typeof read>>) {
  const values = valuesOf(recording);
  const video = values.get('out video')!;
  const audio = values.get('in audio')!;
  // Two connections, 11 reports each: the first has no interval, so no rate.
  expect(video.kbps).toHaveLength(22);
  expect(video.kbps!.filter((v) => v !== null)).toEqual(Array(20).fill(CALL.sendKbps));
  // A stream's first report has encoded no frame yet: its last second cannot have held 30.
  expect([...video.fps!].sort((a, b) => a! - b!)).toEqual([0, 0, ...Array<number>(20).fill(EXPECTED.fps)]);
  expect(new Set(video.rttMs)).toEqual(new Set([EXPECTED.rttMs]));
  expect(new Set(video.width)).toEqual(new Set([EXPECTED.width]));
  expect(audio.lossPct!.filter((v) => v !== null)).toEqual(Array(20).fill(EXPECTED.audioLossPct));
  expect(audio.kbps!.filter((v) => v !== null)).toEqual(Array(20).fill(EXPECTED.audioKbps));
}

describe('reading recordings', () => {
  it("puts a webrtc-internals dump's series back into the polled reports: rates, FPS, RTT, loss as recorded", async () => {
    const recording = await read(webrtcInternalsDump(CALL));
    expect(recording.format).toBe('webrtc-internals');
    expect(recording.userAgent).toMatch(/Chrome\/131/);
    expectTheCall(recording);
  });

  it('reads a gzipped dump (as Chrome downloads it) the same, and hashes the bytes as uploaded', async () => {
    const text = webrtcInternalsDump(CALL);
    const zipped = gzipSync(text);
    const [plain, gz] = await Promise.all([read(text), read(zipped)]);
    expectTheCall(gz);
    expect(gz.hash.equals(plain.hash)).toBe(false);
    expect(gz.bytes).toBe(zipped.length);
  });

  it('reads rtcstats files: format 3 with full reports, and the @jitsi/rtcstats form with delta-compressed ones', async () => {
    const format3 = await read(rtcstatsDump(CALL, 'format3'));
    expect(format3.format).toBe('rtcstats');
    expect(format3.userAgent).toMatch(/Firefox\/128/);
    expectTheCall(format3);
    expectTheCall(await read(rtcstatsDump(CALL, 'jitsi'), 1_000));
  });

  it('turns the recorded state changes into the events a monitor reports', async () => {
    for (const text of [webrtcInternalsDump(CALL), rtcstatsDump(CALL, 'jitsi')]) {
      const { batches } = await read(text);
      const events = batches.flatMap((b) => (b.e ?? []).map((e) => [e[3], e[4]]));
      expect(events).toContainEqual(['ice-connection-state', 'connected']);
    }
  });

  it("reads a dump holding legacy objects beside the standard's by the standard's alone", async () => {
    const dump = JSON.parse(webrtcInternalsDump(CALL)) as { PeerConnections: Record<string, { stats: Record<string, unknown> }> };
    const t = (i: number) => new Date(CALL.startMs + i * 1000).toISOString();
    for (const pc of Object.values(dump.PeerConnections)) {
      const values = (v: string) => JSON.stringify(Array.from({ length: CALL.seconds + 1 }, () => v));
      const series = (type: string, v: string) => ({ startTime: t(0), endTime: t(CALL.seconds), statsType: type, values: values(v) });
      Object.assign(pc.stats, {
        'ssrc_1000_send-ssrc': series('ssrc', '1000'),
        'ssrc_1000_send-mediaType': series('ssrc', 'video'),
        'ssrc_1000_send-bytesSent': series('ssrc', '5'),
        'Conn-video-1-0-googActiveConnection': series('googCandidatePair', 'true'),
      });
    }
    expectTheCall(await read(JSON.stringify(dump)));
  });

  it("reads a legacy (callback getStats) dump's ssrc and candidate-pair objects as the standard's", async () => {
    const t = (i: number) => new Date(CALL.startMs + i * 1000).toISOString();
    const series = (type: string, values: unknown[]) => ({
      startTime: t(0),
      endTime: t(values.length - 1),
      statsType: type,
      values: JSON.stringify(values),
    });
    const dump = {
      PeerConnections: {
        '12-1': {
          stats: {
            'ssrc_777_send-ssrc': series('ssrc', ['777', '777', '777']),
            'ssrc_777_send-mediaType': series('ssrc', ['video', 'video', 'video']),
            'ssrc_777_send-bytesSent': series('ssrc', ['0', '62500', '125000']),
            'ssrc_777_send-packetsSent': series('ssrc', ['0', '60', '120']),
            'ssrc_777_send-packetsLost': series('ssrc', ['0', '3', '6']),
            'ssrc_777_send-googRtt': series('ssrc', ['80', '80', '80']),
            'ssrc_777_send-googFrameRateSent': series('ssrc', ['25', '25', '25']),
            'ssrc_777_send-googFrameWidthSent': series('ssrc', ['640', '640', '640']),
            'ssrc_777_send-googCodecName': series('ssrc', ['VP8', 'VP8', 'VP8']),
            'ssrc_888_recv-ssrc': series('ssrc', ['888', '888', '888']),
            'ssrc_888_recv-mediaType': series('ssrc', ['audio', 'audio', 'audio']),
            'ssrc_888_recv-bytesReceived': series('ssrc', ['0', '4000', '8000']),
            'ssrc_888_recv-packetsReceived': series('ssrc', ['0', '45', '90']),
            'ssrc_888_recv-packetsLost': series('ssrc', ['0', '5', '10']),
            'ssrc_888_recv-googJitterReceived': series('ssrc', ['12', '12', '12']),
            'ssrc_888_recv-googJitterBufferMs': series('ssrc', ['40', '60', '120']),
            'Conn-audio-1-0-googActiveConnection': series('googCandidatePair', ['true', 'true', 'true']),
            'Conn-audio-1-0-googRtt': series('googCandidatePair', ['81', '81', '81']),
            'Conn-audio-1-0-localCandidateId': series('googCandidatePair', ['Cand-a', 'Cand-a', 'Cand-a']),
            'Cand-a-candidateType': series('localcandidate', ['relayed', 'relayed', 'relayed']),
            'Cand-a-transport': series('localcandidate', ['udp', 'udp', 'udp']),
          },
          updateLog: [],
        },
      },
    };
    const recording = await read(JSON.stringify(dump));
    const values = valuesOf(recording);
    expect(values.get('out video')!.kbps).toEqual([null, 500, 500]);
    expect(values.get('out video')!.rttMs).toEqual([80, 80, 80]);
    expect(values.get('out video')!.packetsLost).toEqual([null, 3, 3]);
    expect(values.get('in audio')!.lossPct).toEqual([null, 10, 10]);
    expect(values.get('in audio')!.jitterMs).toEqual([12, 12, 12]);
    // What the buffer held as each second ended, over the packets of that second.
    expect(values.get('in audio')!.jitterBufferMs).toEqual([null, 60, 120]);
    const [first] = recording.batches;
    expect(first!.conns).toEqual([{ i: 0, key: '12-1', localCandidateType: 'relay', localProtocol: 'udp' }]);
    expect(first!.c?.map((row) => row[3])).toEqual([81, 81, 81]);
  });
});

describe('refusing what is not a recording, naming where', () => {
  it('a file of something else, or empty', async () => {
    expect(await refused('name,rate\nalice,300\n')).toMatch(/^line 1: is neither a webrtc-internals dump .* it starts "name,rate/);
    expect(await refused('')).toBe('file: is empty');
    // Firefox's about:webrtc "Save Page": one moment of each connection, as HTML.
    expect(
      await refused('<!DOCTYPE html>\n<html><head><title>about:webrtc</title></head><body><h1>WebRTC Internals</h1></body></html>'),
    ).toMatch(
      /^line 1: is a web page \(Firefox's about:webrtc "Save Page" writes one\): .* record the call with the rtcscope SDK, or with rtcstats/,
    );
    expect(await refused('{"calls": []}')).toMatch(/^PeerConnections: missing/);
    // As rtcstats-server keeps a Jitsi Videobridge's own stats (the jvb-sample of ../shared/recordings starts so).
    expect(
      await refused('{"statsSessionId":"xxxx","type":"identity", "data":{"confName":"room","applicationName":"JVB","endpoints":[]}}\n'),
    ).toMatch(/^line 1: is an SFU's or signalling server's own stats .* not a browser's recording/);
    expect(await refused(gzipSync('').subarray(0, 12))).toMatch(/^file: is gzipped but does not unzip/);
  });

  it('a webrtc-internals dump cut off, or with a series that is not one', async () => {
    const text = webrtcInternalsDump(CALL);
    expect(await refused(text.slice(0, Math.floor(text.length / 2)))).toMatch(
      /^at PeerConnections\["1-\d"\].*: the file ends in the middle of the JSON document \(cut off\?\)$/,
    );
    const bad = text.replace(/"values":"\[[^"]*\]"/, '"values":"[1,2"');
    expect(await refused(bad)).toMatch(/^PeerConnections\["1-1"\]\.stats\["T01-timestamp"\]\.values: is not a list of values/);
    expect(await refused(text.replace('"startTime":"', '"startTime":"yesterday'))).toMatch(/startTime: is not a time: "yesterday/);
  });

  it('an rtcstats file cut off, or with a line that is not one', async () => {
    const lines = rtcstatsDump(CALL, 'format3').split('\n');
    expect(await refused([...lines.slice(0, 8), lines[8]!.slice(0, 40)].join('\n'))).toMatch(/^line 9: is not JSON .*cut off/);
    expect(await refused([...lines.slice(0, 5), '{"a": 1}'].join('\n'))).toMatch(/^line 6: an rtcstats line is a JSON array/);
    expect(await refused(['RTCStatsDump', '{"fileFormat": 2}', lines[2]].join('\n'))).toMatch(
      /^line 2, fileFormat: rtcstats file format 2 is not supported/,
    );
    expect(await refused([...lines.slice(0, 3), '["getStats", "PC_0", {}, "soon"]'].join('\n'))).toMatch(/^line 4, time: must be a number/);
    const jitsi = rtcstatsDump(CALL, 'jitsi').split('\n');
    expect(await refused([...jitsi.slice(0, 3), '["getstats", "PC_0", {}]'].join('\n'))).toMatch(/^line 4: a getstats line needs its time/);
  });

  it("an app's own line without a time is left aside, and the rest of the file read", async () => {
    // As Jitsi Meet writes its end-to-end RTT (a Chrome 99 recording of ../shared/recordings has one).
    const lines = rtcstatsDump(CALL, 'jitsi').split('\n');
    const e2eRtt = '["e2eRtt", null, {"remoteEndpointId": "as458df9","rtt": 223,"remoteRegion": "us-west-1"}]';
    expectTheCall(await read([...lines.slice(0, 3), e2eRtt, ...lines.slice(3)].join('\n')));
  });

  it('an rtcstats object whose type no line named is left aside, and the rest of the file read', async () => {
    // Its first report was never written (a client's socket came back mid-call): delta lines name no type.
    expectTheCall(await read(rtcstatsDump(CALL, 'jitsi').replace('"type":"transport",', '')));
  });

  it('a file past the size limit, as sent', async () => {
    const mb = Buffer.alloc(1_000_000, 0x20);
    const upload = Readable.from(
      (function* () {
        yield Buffer.from('{"PeerConnections":');
        for (let i = 0; i <= RECORDING_LIMITS.uploadBytes / mb.length; i++) yield mb;
      })(),
    );
    await expect(readRecording(upload, () => {})).rejects.toThrow(/^file: is over 200 MB, the largest recording taken$/);
  });
});

describe('what real browsers record', () => {
  it('reads a series of flat objects, as Chrome keeps qualityLimitationDurations', async () => {
    const dump = JSON.parse(webrtcInternalsDump(CALL)) as {
      PeerConnections: Record<string, { stats: Record<string, { statsType: string; values: string }> }>;
    };
    const stats = Object.values(dump.PeerConnections)[0]!.stats;
    const [key, sent] = Object.entries(stats).find(([k, v]) => v.statsType === 'outbound-rtp' && k.endsWith('-bytesSent'))!;
    const n = (JSON.parse(sent.values) as unknown[]).length;
    stats[key.replace(/-bytesSent$/, '-qualityLimitationDurations')] = {
      ...sent,
      values: JSON.stringify(Array.from({ length: n }, (_, i) => ({ other: 0, cpu: 0, bandwidth: i * 0.5, none: i }))),
    };
    const recording = await read(JSON.stringify(dump));
    expect(recording.samples).toBeGreaterThan(0);
  });
});

describe('files made to cost more than their size (bombs) are refused at the bound they cross', () => {
  /** gzip members one after another are one gzip file to a reader: a few kB unzip to as much as asked. */
  const gzipBomb = (head: string, filler: string, unzippedBytes: number) => {
    const member = gzipSync(Buffer.alloc(4_000_000, filler));
    return Buffer.concat([gzipSync(head), ...Array.from({ length: Math.ceil(unzippedBytes / 4_000_000) }, () => member)]);
  };

  it('a small gzip file that unzips to far more than a recording compresses', async () => {
    const bomb = gzipBomb('{"PeerConnections":', ' ', RECORDING_LIMITS.textBytes + 4_000_000);
    expect(bomb.length).toBeLessThan(5_000_000);
    expect(await refused(bomb)).toBe('file: unzips to more than 100 times its size, which no recording does (a gzip bomb?)');
  });

  it('nesting past the depth limit, in a dump and in an rtcstats line', async () => {
    expect(await refused(`{"PeerConnections":${'['.repeat(40_000)}`)).toMatch(/^at PeerConnections(\[0\])+: nests deeper than 32 levels/);
    const lines = rtcstatsDump(CALL, 'format3').split('\n');
    expect(await refused([...lines.slice(0, 3), `["getStats","PC_0",${'['.repeat(40_000)}`].join('\n'))).toMatch(/^line 4: is not JSON/);
  });

  it('a string, a number or a key past the token limit', async () => {
    const long = 'x'.repeat(RECORDING_LIMITS.tokenChars + 1);
    expect(await refused(`{"UserAgent":"${long}"}`)).toMatch(/^at UserAgent: holds a string or number longer than 4000000 characters/);
    expect(await refused(`{"PeerConnections":{"${long}":1}}`)).toMatch(/^at PeerConnections: holds a string or number longer/);
    expect(await refused(`{"n":${'9'.repeat(RECORDING_LIMITS.tokenChars + 1)}}`)).toMatch(/holds a string or number longer/);
  });

  it('a series past its length, holding nested containers, or one value with more items than any recording', async () => {
    const series = (values: unknown) =>
      JSON.stringify({
        PeerConnections: {
          '1-1': { stats: { 'T01-bytesSent': { statsType: 'transport', startTime: CALL.startMs, endTime: CALL.startMs + 1000, values } } },
        },
      });
    expect(await refused(series(JSON.stringify(new Array(RECORDING_LIMITS.seriesValues + 1).fill(1))))).toMatch(
      /\.values: holds 100001 values; a series holds at most 100000$/,
    );
    expect(await refused(series(JSON.stringify([1, { a: [2] }, 2])))).toMatch(/\.values: holds a list or an object inside another/);
    expect(await refused(series(`[${'['.repeat(1000)}${']'.repeat(1000)}]`))).toMatch(/\.values: holds a list or an object inside another/);
    expect(await refused(series(new Array(RECORDING_LIMITS.assembledItems + 1).fill({})))).toMatch(
      /holds more than 200000 items in one value/,
    );
  });

  it('a connection holding more values than any recording does', async () => {
    const values = JSON.stringify(new Array(RECORDING_LIMITS.seriesValues).fill(1));
    const stats = Object.fromEntries(
      Array.from({ length: RECORDING_LIMITS.heldValues / RECORDING_LIMITS.seriesValues + 1 }, (_, i) => [
        `T01-f${i}`,
        { statsType: 'transport', startTime: CALL.startMs, endTime: CALL.startMs + 1000, values },
      ]),
    );
    expect(await refused(JSON.stringify({ PeerConnections: { '1-1': { stats } } }))).toMatch(
      /^PeerConnections\["1-1"\]\.stats: holds more than 4000000 values/,
    );
  });

  it('an rtcstats line past the line limit, refused before it is whole, in time linear in its length', async () => {
    const lines = rtcstatsDump(CALL, 'format3').split('\n');
    const long = `["getStats","PC_0",{${'"a":{},'.repeat(RECORDING_LIMITS.lineChars / 7)}`;
    expect(await refused([...lines.slice(0, 3), long].join('\n'), 16_384)).toBe(
      'line 4: is longer than 4000000 characters, which no rtcstats line is',
    );
  });

  it("rtcstats reports holding more stats fields at once than any recording's connections", async () => {
    const lines = rtcstatsDump(CALL, 'format3').split('\n').slice(0, 2);
    const report = JSON.stringify(
      Object.fromEntries(
        Array.from({ length: 20_000 }, (_, i) => [`o${i}`, { type: 'codec', a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 }]),
      ),
    );
    for (let pc = 0; pc < 30; pc++) lines.push(`["getStats","PC_${pc}",${report},1000]`);
    expect(await refused(lines.join('\n'))).toMatch(/^line \d+: the connections' reports hold more than 4000000 stats fields at once/);
  });
});
