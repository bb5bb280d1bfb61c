import type { PrecallMedia, PrecallReport, PrecallTransportCheck } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { judge } from './verdict.js';

const devices: PrecallReport['devices'] = {
  camera: { status: 'ok', asked: { width: 1280, height: 720 }, got: { width: 1280, height: 720 }, fps: 30 },
  microphone: { status: 'ok', levelDb: -18 },
};
const way = (transport: PrecallTransportCheck['transport'], connected: boolean): PrecallTransportCheck => ({
  transport,
  url: `${transport === 'tls' ? 'turns' : 'turn'}:turn.example.com?transport=${transport === 'udp' ? 'udp' : 'tcp'}`,
  connected,
  ...(connected ? { connectMs: 120 } : { error: 'no relay within 10 s: the TURN server did not answer' }),
});
const media = (over: Partial<PrecallMedia> = {}): PrecallMedia => ({
  transport: 'udp',
  networkTiming: {},
  steps: [],
  throughputKbps: 2500,
  throughputAtLeast: false,
  rttMs: { min: 20, avg: 30, max: 50 },
  jitterMs: { min: 1, avg: 3, max: 8 },
  lossPct: { min: 0, avg: 0.2, max: 1 },
  ...over,
});
const allWays = [way('udp', true), way('tcp', true), way('tls', true)];
const codes = (r: ReturnType<typeof judge>) => r.findings.map((f) => f.code);

describe('the pre-call verdict', () => {
  it('is good on a fast, clean link, and says what the rate carries', () => {
    const r = judge({ devices, transports: allWays, media: media() });
    expect(r.verdict).toBe('good');
    expect(r.findings).toEqual([
      { code: 'throughput', severity: 'info', text: 'About 2500 kbit/s through the TURN server: enough for HD video (1080p).' },
    ]);
  });

  it('says UDP is blocked and TCP works, and expects higher delay', () => {
    const r = judge({ devices, transports: [way('udp', false), way('tcp', true)], media: media({ transport: 'tcp' }) });
    expect(r.verdict).toBe('fair');
    expect(r.findings[0]!.text).toBe(
      'UDP is blocked; TCP through TURN works: expect higher delay, and video that stalls when the network is busy.',
    );
  });

  it('names TLS when only TLS gets through', () => {
    const r = judge({ devices, transports: [way('udp', false), way('tcp', false), way('tls', true)], media: media({ transport: 'tls' }) });
    expect(r.findings[0]!.text).toMatch(/^UDP is blocked; TLS through TURN works/);
  });

  it("fails when no way to the TURN server works, with each way's reason and what to ask for", () => {
    const r = judge({ devices, transports: [way('udp', false), way('tcp', false)], media: null });
    expect(r.verdict).toBe('failed');
    expect(codes(r)).toEqual(['blocked']);
    expect(r.findings[0]!.text).toMatch(
      /^No way through to the TURN server \(UDP: no relay within 10 s: .*; TCP: .*\)\. A firewall or proxy blocks WebRTC/,
    );
  });

  it('fails, saying so, when there is no TURN server to test through', () => {
    expect(judge({ devices, transports: [], media: null, noTurn: 'No TURN server is set.' })).toEqual({
      verdict: 'failed',
      findings: [{ code: 'no-turn', severity: 'error', text: 'No TURN server is set.' }],
    });
  });

  it('fails when a way connected but media could not go through it', () => {
    const r = judge({ devices, transports: allWays, media: null, mediaError: 'ICE failed: the relays could not reach each other' });
    expect(r).toMatchObject({
      verdict: 'failed',
      findings: [
        {
          code: 'media-failed',
          text: 'Media could not be sent through the TURN server: ICE failed: the relays could not reach each other.',
        },
      ],
    });
  });

  it.each([
    [150, 'poor', 'About 150 kbit/s through the TURN server: video will be limited to about 360p.'],
    [400, 'fair', 'About 400 kbit/s through the TURN server: video will be limited to about 360p.'],
    [900, 'fair', 'About 900 kbit/s through the TURN server: video will be limited to about 540p.'],
    [100, 'poor', 'About 100 kbit/s through the TURN server: too little for video: expect audio only.'],
  ] as const)('at %i kbit/s is %s: %s', (kbps, verdict, text) => {
    const r = judge({ devices, transports: allWays, media: media({ throughputKbps: kbps }) });
    expect(r.verdict).toBe(verdict);
    expect(r.findings.find((f) => f.code === 'low-throughput')!.text).toBe(text);
  });

  it('grades round trip, loss and jitter: fair, then poor', () => {
    expect(judge({ devices, transports: allWays, media: media({ rttMs: { min: 150, avg: 180, max: 250 } }) }).verdict).toBe('fair');
    expect(judge({ devices, transports: allWays, media: media({ rttMs: { min: 300, avg: 320, max: 400 } }) }).verdict).toBe('poor');
    const lossy = judge({ devices, transports: allWays, media: media({ lossPct: { min: 3, avg: 6.2, max: 9 } }) });
    expect(lossy.verdict).toBe('poor');
    expect(lossy.findings.find((f) => f.code === 'loss')!.text).toBe(
      '6.2 % of packets were lost: expect choppy audio and frozen video. A wired connection, or sitting nearer the Wi-Fi, usually helps.',
    );
    expect(judge({ devices, transports: allWays, media: media({ jitterMs: { min: 20, avg: 40, max: 90 } }) }).verdict).toBe('fair');
  });

  it('judges the network without a camera, and says what is missing', () => {
    const r = judge({
      devices: { ...devices, camera: { status: 'missing', asked: { width: 1280, height: 720 }, error: 'no camera was found' } },
      transports: allWays,
      media: media(),
    });
    expect(r.verdict).toBe('fair');
    expect(r.findings[0]).toEqual({ code: 'camera-missing', severity: 'warning', text: 'No camera was found: others will not see you.' });
    expect(codes(r)).toContain('throughput');
  });

  it('is poor without a microphone, and tells how to allow one that was refused', () => {
    const r = judge({ devices: { ...devices, microphone: { status: 'denied', error: 'refused' } }, transports: allWays, media: media() });
    expect(r.verdict).toBe('poor');
    expect(r.findings[0]!.text).toMatch(
      /^Microphone access was refused: allow it in the browser's site settings .*: others will not hear you\.$/,
    );
  });

  it('notes a silent microphone, a slow camera and a smaller picture than asked', () => {
    const r = judge({
      devices: {
        camera: { status: 'ok', asked: { width: 1280, height: 720 }, got: { width: 640, height: 480 }, fps: 5 },
        microphone: { status: 'ok', levelDb: -90 },
      },
      transports: allWays,
      media: media(),
    });
    expect(r.verdict).toBe('fair');
    expect(codes(r)).toEqual(['camera-smaller', 'camera-slow', 'microphone-silent', 'throughput']);
  });
});
