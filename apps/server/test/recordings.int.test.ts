import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import {
  type CallDetail,
  type CallDiagnosis,
  type CallEvents,
  type CallList,
  type Insights,
  type RecordingImported,
  SAMPLE_HEAD,
  type Series,
  streamFieldIndex,
} from '@rtcscope/protocol';
import { carriesMedia } from '@rtcscope/diagnosis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARRIES_MEDIA_SQL } from '../src/calls/stream-life.js';
import { expireImportedCalls } from '../src/recordings/expiry.js';
import { compactSamples } from '../src/samples/compaction.js';
import { pointsSql } from '../src/samples/points.js';
import { dropExpired } from '../src/samples/retention.js';
import { ID_TIER_SHIFT, IMPORTED_TIER } from '../src/samples/retention-tiers.js';
import { api, count, handshake, ingestSocket, send, startTestServer, type TestServer } from './harness.js';
import { EXPECTED, rtcstatsDump, type SyntheticRecording, webrtcInternalsDump } from './recordings.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer(2);
});
afterAll(() => t.close());

const recent = (minutesAgo: number): SyntheticRecording => ({
  startMs: Date.now() - minutesAgo * 60_000,
  seconds: 20,
  connections: 2,
  sendKbps: 800,
});

async function upload(
  body: string | Buffer,
  name: string,
  apiKey = t.projects[0]!.apiKey,
): Promise<{ status: number; body: RecordingImported & { message?: string } }> {
  const res = await fetch(`${t.url}/api/v1/recordings?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return { status: res.status, body: (await res.json()) as RecordingImported & { message?: string } };
}

/** What is stored, all projects: a refused import must change none of it. */
const stored = async () => ({
  calls: await count(t.db, 'call'),
  streams: await count(t.db, 'stream'),
  samples: (await count(t.db, 'stream_sample')) + (await count(t.db, 'connection_sample')),
  events: await count(t.db, 'call_event'),
  recordings: await count(t.db, 'recording'),
});

describe('recordings in', () => {
  it('imports a webrtc-internals dump as an ended call marked imported, its values as recorded, judged by the diagnosis', async () => {
    const p = t.projects[0]!;
    const up = await upload(gzipSync(webrtcInternalsDump(recent(30))), 'webrtc_internals_dump.txt');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ duplicate: false, format: 'webrtc-internals', browser: 'Chrome 131', samples: 2 * 21 * 3 });
    const { callId } = up.body;

    const detail = (await api<CallDetail>(t, `/calls/${callId}`, p.apiKey)).body;
    expect(detail.call.state).toBe('ended');
    expect(detail.call.metadata).toEqual({
      recording: 'webrtc_internals_dump.txt',
      recordingFormat: 'webrtc-internals',
      browser: 'Chrome 131',
      importedAt: expect.any(String),
    });
    expect(Date.now() - Date.parse(detail.call.metadata.importedAt as string)).toBeLessThan(60_000);
    expect(detail.participants.map((x) => x.connections.map((c) => c.key))).toEqual([['1-1', '1-2']]);
    expect(detail.participants[0]!.client).toEqual({
      browser: 'Chrome',
      browserVersion: '131',
      os: 'Linux',
      deviceType: 'desktop',
      sdkVersion: null,
      country: null,
    });
    expect(detail.call.endedAt! - detail.call.startedAt).toBe(20_000);

    const series = (await api<Series>(t, `/calls/${callId}/series?maxPoints=10000`, p.apiKey)).body;
    const videoIds = new Set(
      detail.participants[0]!.connections.flatMap((c) => c.streams.filter((s) => s.kind === 'video').map((s) => s.id)),
    );
    const audioIds = new Set(
      detail.participants[0]!.connections.flatMap((c) => c.streams.filter((s) => s.kind === 'audio').map((s) => s.id)),
    );
    const field = (ids: Set<number>, name: Parameters<typeof streamFieldIndex>[0]) =>
      series.streams
        .filter((pt) => ids.has(pt.id))
        .map((pt) => pt.v[streamFieldIndex(name)])
        .filter((v) => v !== null);
    expect(field(videoIds, 'kbps')).toEqual(Array(40).fill(800));
    expect(new Set(field(videoIds, 'rttMs'))).toEqual(new Set([EXPECTED.rttMs]));
    expect(new Set(field(audioIds, 'lossPct'))).toEqual(new Set([EXPECTED.audioLossPct]));

    const events = (await api<CallEvents>(t, `/calls/${callId}/events`, p.apiKey)).body.events;
    expect(events.filter((e) => e.type === 'ice-connection-state').map((e) => e.detail)).toEqual([
      'checking',
      'checking',
      'connected',
      'connected',
    ]);

    const diagnosis = (await api<CallDiagnosis>(t, `/calls/${callId}/diagnosis`, p.apiKey)).body;
    expect(diagnosis.scores.summary.mean).not.toBeNull();
    expect(detail.call.score).toBeCloseTo(diagnosis.scores.summary.mean!, 5);
    // Each received audio window keeps the mouth-to-ear delay its score read, stored: half the 50-ms round
    // trip, the jitter buffer at twice the 4-ms jitter, 20 ms of packets (the call page says what is heard
    // apart from what a conversation suffers); video windows have none.
    const windows = (kind: string) => diagnosis.scores.streams.filter((x) => x.kind === kind).flatMap((x) => x.windows);
    expect(windows('audio').length).toBeGreaterThan(0);
    for (const w of windows('audio')) expect(w.delayMs).toBeCloseTo(EXPECTED.rttMs / 2 + 2 * 4 + 20, 3);
    expect(windows('video').filter((w) => w.delayMs !== undefined)).toEqual([]);
  });

  it('imports rtcstats files (format 3, and the @jitsi/rtcstats form) with the browser their metadata names', async () => {
    const format3 = await upload(rtcstatsDump(recent(20), 'format3'), 'dump-format3');
    expect(format3.status).toBe(201);
    expect(format3.body).toMatchObject({ format: 'rtcstats', browser: 'Firefox 128' });
    const jitsi = await upload(rtcstatsDump(recent(19), 'jitsi'), 'dump-jitsi');
    expect(jitsi.status).toBe(201);
    expect(jitsi.body).toMatchObject({ format: 'rtcstats', browser: null });
    const detail = (await api<CallDetail>(t, `/calls/${jitsi.body.callId}`, t.projects[0]!.apiKey)).body;
    expect(detail.participants.map((x) => x.id)).toEqual(['recorded']);
  });

  it('makes one call of the same file imported twice, also when both uploads run at once', async () => {
    const file = webrtcInternalsDump(recent(15));
    const first = await upload(file, 'a.txt');
    const before = await stored();
    const again = await upload(file, 'renamed.txt');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ callId: first.body.callId, duplicate: true });
    expect(await stored()).toEqual(before);

    const other = rtcstatsDump(recent(14), 'format3');
    const both = await Promise.all([upload(other, 'b'), upload(other, 'b')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(both[0]!.body.callId).toBe(both[1]!.body.callId);
    expect(await count(t.db, 'recording')).toBe(before.recordings + 1);
  });

  it('refuses a file that is cut off, not a recording, or dated in the future, naming why, and stores nothing of it', async () => {
    const before = await stored();
    const text = webrtcInternalsDump(recent(10));
    const cut = await upload(text.slice(0, text.length - 500), 'cut.txt');
    expect(cut.status).toBe(400);
    expect(cut.body.message).toMatch(
      /^recording at PeerConnections\["1-2"\].*: the file ends in the middle of the JSON document \(cut off\?\)$/,
    );
    const lines = rtcstatsDump(recent(10), 'jitsi').split('\n');
    const broken = await upload([...lines.slice(0, 30), lines[30]!.slice(0, 100)].join('\n'), 'broken.jsonl');
    expect(broken.body.message).toMatch(/^recording line 31: is not JSON/);
    const csv = await upload('time,kbps\n1,2\n', 'data.csv');
    expect(csv.body.message).toMatch(/^recording line 1: is neither a webrtc-internals dump/);
    const ahead = await upload(webrtcInternalsDump(recent(-60 * 24)), 'ahead.txt');
    expect(ahead.status).toBe(400);
    expect(ahead.body.message).toMatch(/in the future: the recording computer's clock was wrong/);
    expect(await stored()).toEqual(before);
  });

  it('stores the values a browser should not have reported as null, counted per stream, and every other value of the file', async () => {
    const p = t.projects[0]!;
    const up = await upload(webrtcInternalsDump({ ...recent(7), quirks: true }), 'quirks.txt');
    expect(up.status, up.body.message).toBe(201);
    expect(up.body.samples).toBe(2 * 21 * 3);
    const detail = (await api<CallDetail>(t, `/calls/${up.body.callId}`, p.apiKey)).body;
    const streams = detail.participants[0]!.connections.flatMap((c) => c.streams);
    // Each of 21 reports per connection: a width of 0 on the sent video, a level of -1 on the received audio.
    expect(streams.map((s) => [s.direction, s.kind, s.outOfRange]).sort()).toEqual([
      ['in', 'audio', 21],
      ['in', 'audio', 21],
      ['out', 'video', 21],
      ['out', 'video', 21],
    ]);
    const series = (await api<Series>(t, `/calls/${up.body.callId}/series?maxPoints=10000`, p.apiKey)).body;
    const video = new Set(streams.filter((s) => s.kind === 'video').map((s) => s.id));
    const sent = series.streams.filter((pt) => video.has(pt.id));
    expect(sent.every((pt) => pt.v[streamFieldIndex('width')] === null && pt.v[streamFieldIndex('height')] === EXPECTED.height)).toBe(true);
    expect(sent.map((pt) => pt.v[streamFieldIndex('kbps')]).filter((v) => v !== null)).toEqual(Array(40).fill(800));
  });

  it('tells each stream’s state: a received video that never carried a packet is never-active and lowers no score', async () => {
    const p = t.projects[0]!;
    const r = { ...recent(30), connections: 1 };
    const judged = async (placeholder: boolean) => {
      const up = await upload(webrtcInternalsDump({ ...r, placeholder }), `placeholder-${placeholder}.txt`);
      expect(up.status, up.body.message).toBe(201);
      const detail = (await api<CallDetail>(t, `/calls/${up.body.callId}`, p.apiKey)).body;
      return { call: detail.call, streams: detail.participants.flatMap((q) => q.connections.flatMap((c) => c.streams)) };
    };
    const plain = await judged(false);
    const withPlaceholder = await judged(true);
    const states = withPlaceholder.streams.map((s) => [s.direction, s.kind, s.state, s.activeFrom !== null && s.activeFrom >= r.startMs]);
    expect(states.sort()).toEqual([
      ['in', 'audio', 'active', true],
      ['in', 'video', 'never-active', false],
      ['out', 'video', 'active', true],
    ]);
    expect(withPlaceholder.streams.every((s) => s.state !== 'active' || s.activeUntil! >= s.activeFrom!)).toBe(true);
    expect(withPlaceholder.call.issues).toEqual(plain.call.issues);
    expect(withPlaceholder.call.score).not.toBeNull();
    expect(withPlaceholder.call.score).toBe(plain.call.score);
  });

  it('shows a connection with a data channel alone (an analytics probe in the page) apart, and raises nothing of its failing ICE', async () => {
    const p = t.projects[0]!;
    const r = { ...recent(30), seconds: 40, connections: 1 };
    const judged = async (probe: boolean) => {
      const up = await upload(rtcstatsDump({ ...r, probe }, 'jitsi'), `probe-${probe}.rtcstats`);
      expect(up.status, up.body.message).toBe(201);
      const detail = (await api<CallDetail>(t, `/calls/${up.body.callId}`, p.apiKey)).body;
      const diagnosis = (await api<CallDiagnosis>(t, `/calls/${up.body.callId}/diagnosis`, p.apiKey)).body;
      return { detail, issues: diagnosis.issues.map((i) => `${i.type} ${i.participantId}`) };
    };
    const plain = await judged(false);
    const probed = await judged(true);
    const connections = probed.detail.participants.flatMap((x) => x.connections);
    // The call's own connection says nothing of what it negotiated (no SDP, no API call recorded).
    expect(connections.map((c) => [c.key, c.media])).toEqual([
      ['PC_0', null],
      ['PC_probe', [{ kind: 'application', direction: null }]],
    ]);
    expect(probed.issues).toEqual(plain.issues);
    expect(probed.detail.call.score).toBe(plain.detail.call.score);
    expect(probed.detail.call.quality).toBe(plain.detail.call.quality);
  });

  it('tells what carried media in SQL as the diagnosis tells it (carriesMedia)', async () => {
    const values = [null, 0, 0.4, 1, 30];
    const pairs = values.flatMap((kbps) => values.map((fps) => [kbps, fps] as const));
    const { rows } = await t.db.pool.query<{ carried: boolean }>(
      `SELECT ${CARRIES_MEDIA_SQL} AS carried FROM unnest($1::float8[], $2::float8[]) WITH ORDINALITY AS v(kbps, fps, n) ORDER BY n`,
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    expect(rows.map((r) => r.carried)).toEqual(pairs.map(([kbps, fps]) => carriesMedia(kbps, fps)));
    expect(rows.some((r) => r.carried) && rows.some((r) => !r.carried)).toBe(true);
  });

  it('splits a loopback page (both ends of a call in one page) into a participant per end, and says so', async () => {
    const p = t.projects[0]!;
    const up = await upload(webrtcInternalsDump({ ...recent(8), loopback: true }), 'loopback.txt');
    expect(up.status, up.body.message).toBe(201);
    const detail = (await api<CallDetail>(t, `/calls/${up.body.callId}`, p.apiKey)).body;
    expect(detail.call.metadata).toMatchObject({ loopback: true });
    expect(detail.participants.map((x) => [x.id, x.connections.map((c) => c.key)])).toEqual([
      ['chrome-131-1-1', ['1-1']],
      ['chrome-131-1-2', ['1-2']],
    ]);
    // Each end sends its own 800 kbit/s: not one participant sending both.
    const series = (await api<Series>(t, `/calls/${up.body.callId}/series?maxPoints=10000`, p.apiKey)).body;
    const sent = new Set(
      detail.participants.flatMap((x) => x.connections.flatMap((c) => c.streams.filter((s) => s.direction === 'out').map((s) => s.id))),
    );
    expect(
      new Set(
        series.streams
          .filter((pt) => sent.has(pt.id))
          .map((pt) => pt.v[streamFieldIndex('kbps')])
          .filter((v) => v !== null),
      ),
    ).toEqual(new Set([800]));
  });

  it('makes a participant of each page (tab) a webrtc-internals dump holds', async () => {
    const up = await upload(webrtcInternalsDump({ ...recent(6), pages: true }), 'two-tabs.txt');
    expect(up.status, up.body.message).toBe(201);
    const detail = (await api<CallDetail>(t, `/calls/${up.body.callId}`, t.projects[0]!.apiKey)).body;
    expect(detail.participants.map((x) => [x.id, x.connections.map((c) => c.key)])).toEqual([
      ['chrome-131-page-1', ['1-1']],
      ['chrome-131-page-2', ['2-1']],
    ]);
    expect(detail.call.metadata.loopback).toBeUndefined();
  });

  it("keeps each project's recordings its own: another project neither sees the call nor shares it when it imports the same file", async () => {
    const [a, b] = t.projects;
    const file = webrtcInternalsDump(recent(5));
    const mine = await upload(file, 'x', a!.apiKey);
    expect((await api(t, `/calls/${mine.body.callId}`, b!.apiKey)).status).toBe(404);
    const theirs = await upload(file, 'x', b!.apiKey);
    expect(theirs.status).toBe(201);
    expect((await api<CallDetail>(t, `/calls/${theirs.body.callId}`, b!.apiKey)).body.participants).toHaveLength(1);
    const unauthorized = await fetch(`${t.url}/api/v1/recordings?name=x`, { method: 'POST', body: file });
    expect(unauthorized.status).toBe(401);
    const empty = await fetch(`${t.url}/api/v1/recordings?name=x`, { method: 'POST', headers: { authorization: `Bearer ${a!.apiKey}` } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { message: string }).message).toBe(
      'the recording is the request body: send the file itself (curl --data-binary @file)',
    );
  });
});

/** The imports under way in the server (this process is the server's): each spools its upload into a folder of its own. */
const spools = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`rtcscope-recording-${process.pid}-`)).length;

describe('an upload cut short', () => {
  it('stores nothing and leaves the server answering, when the uploader goes away mid-file', async () => {
    const before = await stored();
    const { request } = await import('node:http');
    for (const file of [
      Buffer.from(webrtcInternalsDump(recent(8))),
      Buffer.from(rtcstatsDump(recent(8), 'jitsi')),
      gzipSync(rtcstatsDump(recent(7), 'format3')),
    ]) {
      await new Promise<void>((resolve) => {
        const req = request(`${t.url}/api/v1/recordings?name=gone.txt`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.projects[0]!.apiKey}`,
            'content-type': 'application/octet-stream',
            'content-length': String(file.length),
          },
        });
        req.on('error', () => resolve());
        req.write(file.subarray(0, Math.floor(file.length / 2)), () => setTimeout(() => req.destroy(), 100));
      });
    }
    expect((await api(t, '/calls', t.projects[0]!.apiKey)).status).toBe(200);
    expect(await stored()).toEqual(before);
    // Each cancelled import lets go of its spooled copy, and with it its place among the project's
    // imports at once (the next test needs both places: a loaded machine took the uploads down later).
    await expect.poll(spools, { timeout: 10_000 }).toBe(0);
  });
});

describe('imports at once', () => {
  it("are two per project: a third waits its turn (429), and another project's are not held up", { timeout: 60_000 }, async () => {
    const { request } = await import('node:http');
    const file = Buffer.from(webrtcInternalsDump(recent(9)));
    // Two uploads of project 0 that send half their file and wait.
    const held = await Promise.all(
      [0, 1].map(
        (k) =>
          new Promise<import('node:http').ClientRequest>((resolve) => {
            const req = request(`${t.url}/api/v1/recordings?name=held-${k}.txt`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${t.projects[0]!.apiKey}`,
                'content-type': 'application/octet-stream',
                'content-length': String(file.length),
              },
            });
            req.on('error', () => {});
            req.write(file.subarray(0, file.length / 2), () => resolve(req));
          }),
      ),
    );
    // The server has begun both once each spooled its copy.
    await expect.poll(spools, { timeout: 10_000 }).toBe(2);
    const third = await upload(gzipSync(rtcstatsDump(recent(4), 'jitsi')), 'third.jsonl');
    expect(third.status).toBe(429);
    expect(third.body.message).toBe('this project is importing 2 recordings already: send this one when one of them is done');
    expect((await upload(gzipSync(rtcstatsDump(recent(4), 'jitsi')), 'other.jsonl', t.projects[1]!.apiKey)).status).toBe(201);
    for (const req of held) req.destroy();
    await expect
      .poll(async () => (await upload(gzipSync(rtcstatsDump(recent(4), 'jitsi')), 'third.jsonl')).status, { timeout: 10_000 })
      .toBe(201);
  });
});

describe('recordings out', () => {
  it('exports a call as an rtcstats dump that reads back as the same call', async () => {
    const p = t.projects[0]!;
    const original = await upload(webrtcInternalsDump(recent(4)), 'original.txt');
    const res = await fetch(`${t.url}/api/v1/calls/${original.body.callId}/export.rtcstats`, {
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="call-${original.body.callId}.rtcstats"`);
    const dump = await res.text();
    const [magic, meta] = dump.split('\n');
    expect(magic).toBe('RTCStatsDump');
    expect(JSON.parse(meta!)).toMatchObject({ fileFormat: 3, callId: original.body.callId });

    const again = await upload(dump, 'exported.rtcstats');
    expect(again.status, again.body.message).toBe(201);
    expect(again.body.samples).toBe(original.body.samples);
    const valuesOf = async (callId: string) => {
      const detail = (await api<CallDetail>(t, `/calls/${callId}`, p.apiKey)).body;
      const series = (await api<Series>(t, `/calls/${callId}/series?maxPoints=10000`, p.apiKey)).body;
      const kind = new Map(
        detail.participants.flatMap((x) =>
          x.connections.flatMap((c) => c.streams.map((s) => [s.id, `${c.key.split(':').at(-1)} ${s.direction} ${s.kind}`])),
        ),
      );
      return series.streams
        .map((pt) => ({ ts: pt.ts, stream: kind.get(pt.id), v: pt.v }))
        .sort((a, b) => a.ts - b.ts || a.stream!.localeCompare(b.stream!));
    };
    const [before, after] = [await valuesOf(original.body.callId), await valuesOf(again.body.callId)];
    expect(after.map((x) => [x.ts, x.stream])).toEqual(before.map((x) => [x.ts, x.stream]));
    // The quantizer is read from the dump (a step up each second sent), so its round trip below compares numbers.
    const qp = streamFieldIndex('qp');
    expect(new Set(before.filter((x) => x.stream?.endsWith('out video')).map((x) => x.v[qp])).size).toBeGreaterThan(1);
    const encodeMs = streamFieldIndex('encodeMs');
    // (A stream's first sample has no interval to take it over.)
    const encoded = before.filter((x) => x.stream?.endsWith('out video') && x.v[encodeMs] !== null).map((x) => x.v[encodeMs]);
    expect(new Set(encoded)).toEqual(new Set([4, 5]));
    for (const name of [
      'kbps',
      'packets',
      'packetsLost',
      'lossPct',
      'jitterMs',
      'rttMs',
      'fps',
      'width',
      'height',
      'frames',
      'captureFps',
      'qp',
      'encodeMs',
    ] as const) {
      const k = streamFieldIndex(name);
      after.forEach((x, i) => {
        const was = before[i]!.v[k] ?? null;
        if (was === null) expect(x.v[k] ?? null, `${name} at ${x.ts}`).toBeNull();
        else
          expect(Math.abs((x.v[k] ?? NaN) - was), `${name} at ${x.ts}: ${x.v[k]} for ${was}`).toBeLessThanOrEqual(
            Math.max(0.1, Math.abs(was) * 0.002),
          );
      });
    }
    expect((await api(t, '/calls/no-such-call/export.rtcstats', p.apiKey)).status).toBe(404);
  });

  it('round-trips a call of several participants: the same participants, each with its own numbers', async () => {
    const p = t.projects[0]!;
    const t0 = Date.now() - 300_000;
    const row = (seq: number, kbps: number, fps: number | null) => {
      const r: (number | null)[] = [0, seq, seq * 1000, kbps, Math.round(kbps / 10), 0, 0, 2.5, 20];
      if (fps !== null)
        Object.assign(r, {
          [SAMPLE_HEAD.length + streamFieldIndex('fps')]: fps,
          [SAMPLE_HEAD.length + streamFieldIndex('height')]: 360,
          [SAMPLE_HEAD.length + streamFieldIndex('frames')]: fps,
        });
      return r;
    };
    const sends = { alice: { direction: 'out', kbps: 497, fps: 30 }, bob: { direction: 'in', kbps: 374, fps: 24 } } as const;
    for (const [who, s] of Object.entries(sends)) {
      const socket = await ingestSocket(t.url, handshake(p, 'call-round-trip', who));
      const ack = await send(socket, {
        n: 0,
        t0,
        conns: [{ i: 0, key: 'pc1' }],
        streams: [{ i: 0, conn: 0, direction: s.direction, kind: 'video', ssrc: 42 }],
        s: Array.from({ length: 10 }, (_, k) => row(k, s.kbps, s.fps)),
        c: Array.from({ length: 10 }, (_, k) => [
          0,
          k,
          k * 1000,
          20,
          null,
          null,
          who === 'alice' ? s.kbps : 10,
          who === 'bob' ? s.kbps : 10,
        ]),
        bye: true,
      });
      expect(ack).toMatchObject({ ok: true });
      socket.disconnect();
    }
    const res = await fetch(`${t.url}/api/v1/calls/call-round-trip/export.rtcstats`, { headers: { authorization: `Bearer ${p.apiKey}` } });
    const again = await upload(await res.text(), 'round-trip.rtcstats');
    expect(again.status, again.body.message).toBe(201);

    const byParticipant = async (callId: string) => {
      const detail = (await api<CallDetail>(t, `/calls/${callId}`, p.apiKey)).body;
      const series = (await api<Series>(t, `/calls/${callId}/series?maxPoints=10000`, p.apiKey)).body;
      const owner = new Map(
        detail.participants.flatMap((x) => x.connections.flatMap((c) => c.streams.map((s) => [s.id, `${x.id} ${s.direction}`]))),
      );
      const out: Record<string, { kbps: number[]; fps: number[] }> = {};
      for (const pt of series.streams) {
        const o = (out[owner.get(pt.id)!] ??= { kbps: [], fps: [] });
        const [kbps, fps] = [pt.v[streamFieldIndex('kbps')], pt.v[streamFieldIndex('fps')]];
        if (kbps !== null && kbps !== undefined) o.kbps.push(kbps);
        if (fps !== null && fps !== undefined) o.fps.push(fps);
      }
      return { participants: detail.participants.map((x) => x.id).sort(), streams: out };
    };
    const [before, after] = [await byParticipant('call-round-trip'), await byParticipant(again.body.callId)];
    expect(after.participants).toEqual(['alice', 'bob']);
    expect(Object.keys(after.streams).sort()).toEqual(['alice out', 'bob in']);
    for (const key of ['alice out', 'bob in']) {
      // The file's first report has no counter before it (no rate); the frame rate is in the report itself.
      expect(after.streams[key]!.kbps.map((v) => Math.round(v))).toEqual(before.streams[key]!.kbps.slice(1));
      expect(after.streams[key]!.fps.map((v) => Math.round(v))).toEqual(before.streams[key]!.fps);
    }
  });
});

describe('recordings of any age', () => {
  it('keeps a recording made years ago from the day it was imported, at its recorded times, apart from the live fleet, until its project stops keeping it', async () => {
    const p = t.projects[0]!;
    const recorded: SyntheticRecording = { startMs: Date.UTC(2021, 2, 3, 10), seconds: 20, connections: 2, sendKbps: 800 };
    const up = await upload(webrtcInternalsDump(recorded), 'from-2021.txt');
    expect(up.status, up.body.message).toBe(201);
    const { callId } = up.body;
    const detail = (await api<CallDetail>(t, `/calls/${callId}`, p.apiKey)).body;
    expect(detail.call).toMatchObject({ startedAt: recorded.startMs, endedAt: recorded.startMs + 20_000, state: 'ended' });
    const streamIds = detail.participants.flatMap((x) => x.connections.flatMap((c) => c.streams.map((s) => s.id)));
    // Its streams are in the imported tier, whose day partitions retention does not drop.
    expect(streamIds.every((id) => Math.floor(id / 2 ** ID_TIER_SHIFT) === IMPORTED_TIER)).toBe(true);
    await compactSamples(t.db);
    await dropExpired(t.db.pool);
    const kbps = async () =>
      (await api<Series>(t, `/calls/${callId}/series?maxPoints=10000`, p.apiKey)).body.streams
        .map((pt) => pt.v[streamFieldIndex('kbps')])
        .filter((v) => v === 800);
    expect(await kbps()).toHaveLength(40);
    // Every format: rtcstats files from 2020 too.
    for (const form of ['format3', 'jitsi'] as const) {
      const old: SyntheticRecording = { startMs: Date.UTC(2020, 5, 1, 9), seconds: 10, connections: 1, sendKbps: 500 };
      const rtcstats = await upload(rtcstatsDump(old, form), `2020-${form}.rtcstats`);
      expect(rtcstats.status, rtcstats.body.message).toBe(201);
      expect((await api<CallDetail>(t, `/calls/${rtcstats.body.callId}`, p.apiKey)).body.call.startedAt).toBe(old.startMs);
    }

    // Insights count it only when imported calls are asked for; the calls list finds it by when it was imported.
    const period = `from=${Date.UTC(2021, 2, 1)}&to=${Date.UTC(2021, 2, 6)}`;
    await expect
      .poll(async () => (await api<Insights>(t, `/insights?${period}&source=imported`, p.apiKey)).body.segments[0]?.participants ?? 0, {
        timeout: 30_000,
      })
      .toBe(1);
    expect((await api<Insights>(t, `/insights?${period}`, p.apiKey)).body.segments).toEqual([]);
    const listed = async (query: string) => (await api<CallList>(t, `/calls?${query}`, p.apiKey)).body.calls.map((c) => c.id);
    expect(await listed(`source=imported&from=${Date.now() - 3_600_000}`)).toContain(callId);
    // Live and imported together (the default), an imported call among the most recent by its import.
    expect(await listed(`from=${Date.now() - 3_600_000}&limit=3`)).toContain(callId);
    expect(await listed(`source=live&from=${Date.UTC(2021, 0, 1)}`)).not.toContain(callId);

    // Kept for the project's retention (30 days) from its import, then gone with its samples.
    const samplesOf = async () =>
      Number(
        (
          await t.db.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM ${pointsSql('stream', [], '$1::bigint[]', "'2021-03-01'::timestamptz", "'2021-03-06'::timestamptz", true)}`,
            [streamIds],
          )
        ).rows[0]!.n,
      );
    expect(await samplesOf()).toBeGreaterThan(0);
    expect(await expireImportedCalls(t.db.pool, Date.now() + 29 * 86_400_000)).toBe(0);
    expect((await api(t, `/calls/${callId}`, p.apiKey)).status).toBe(200);
    expect(await expireImportedCalls(t.db.pool, Date.now() + 31 * 86_400_000)).toBeGreaterThan(0);
    expect((await api(t, `/calls/${callId}`, p.apiKey)).status).toBe(404);
    expect(await samplesOf()).toBe(0);
  });
});
