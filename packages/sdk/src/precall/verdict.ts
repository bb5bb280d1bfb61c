import type { PrecallFinding, PrecallReport, PrecallVerdict } from '@rtcscope/protocol';

type Measured = Pick<PrecallReport, 'devices' | 'transports' | 'media'> & {
  /** Why there was no TURN server to test through, in words. */
  noTurn?: string;
  /** Why media could not go through the TURN server, when a way to it connected but media did not. */
  mediaError?: string;
};

/** Thresholds of the verdict (Daily's testCallQuality calls < 5 % loss, < 300 ms RTT and ≥ 1.1 Mbit/s good). */
export const VERDICT_LIMITS = {
  goodKbps: 1100,
  poorKbps: 300,
  fairRttMs: 150,
  poorRttMs: 300,
  fairLossPct: 2,
  poorLossPct: 5,
  fairJitterMs: 30,
  silentDb: -60,
  fewFps: 10,
} as const;

const ORDER: PrecallVerdict[] = ['good', 'fair', 'poor', 'failed'];

/** What a rate carries, from the encoders' usual ladders (VP8/H.264 at 30 fps). */
function videoAt(kbps: number): string {
  if (kbps < 150) return 'too little for video: expect audio only';
  if (kbps < 500) return 'video will be limited to about 360p';
  if (kbps < 1200) return 'video will be limited to about 540p';
  if (kbps < 2500) return 'enough for 720p video';
  return 'enough for HD video (1080p)';
}

/** The verdict and, in words a customer can act on, why. */
export function judge(m: Measured): { verdict: PrecallVerdict; findings: PrecallFinding[] } {
  const findings: PrecallFinding[] = [];
  let verdict: PrecallVerdict = 'good';
  const worsen = (to: PrecallVerdict, finding: PrecallFinding) => {
    findings.push(finding);
    if (ORDER.indexOf(to) > ORDER.indexOf(verdict)) verdict = to;
  };

  const { camera, microphone } = m.devices;
  if (camera.status !== 'ok' && camera.status !== 'not-asked') {
    worsen('fair', {
      code: `camera-${camera.status}`,
      severity: 'warning',
      text: `${deviceWords('camera', camera.status, camera.error)}: others will not see you.`,
    });
  } else if (camera.status === 'ok') {
    const { asked, got, fps } = camera;
    if (got && (got.width < asked.width || got.height < asked.height)) {
      findings.push({
        code: 'camera-smaller',
        severity: 'info',
        text: `The camera gives ${got.width}×${got.height} where ${asked.width}×${asked.height} was asked.`,
      });
    }
    if (fps !== undefined && fps < VERDICT_LIMITS.fewFps) {
      worsen('fair', {
        code: 'camera-slow',
        severity: 'warning',
        text: `The camera delivers ${fps} frames a second: close other applications using it, or add light.`,
      });
    }
  }
  if (microphone.status !== 'ok' && microphone.status !== 'not-asked') {
    worsen('poor', {
      code: `microphone-${microphone.status}`,
      severity: 'error',
      text: `${deviceWords('microphone', microphone.status, microphone.error)}: others will not hear you.`,
    });
  } else if (microphone.levelDb !== undefined && microphone.levelDb < VERDICT_LIMITS.silentDb) {
    worsen('fair', {
      code: 'microphone-silent',
      severity: 'warning',
      text: `The microphone gives no sound (${Math.round(microphone.levelDb)} dB): check that it is not muted.`,
    });
  }

  if (m.noTurn !== undefined) {
    worsen('failed', { code: 'no-turn', severity: 'error', text: m.noTurn });
    return { verdict, findings };
  }
  const works = (t: string) => m.transports.some((c) => c.transport === t && c.connected);
  const tried = (t: string) => m.transports.some((c) => c.transport === t);
  if (!m.transports.some((c) => c.connected)) {
    const why = m.transports.map((c) => `${c.transport.toUpperCase()}: ${c.error ?? 'failed'}`).join('; ');
    worsen('failed', {
      code: 'blocked',
      severity: 'error',
      text: `No way through to the TURN server (${why}). A firewall or proxy blocks WebRTC: ask the network's administrator to allow UDP port 3478 and TCP port 443 to the TURN server.`,
    });
    return { verdict, findings };
  }
  if (tried('udp') && !works('udp')) {
    const through = works('tcp') ? 'TCP' : 'TLS';
    worsen('fair', {
      code: 'udp-blocked',
      severity: 'warning',
      text: `UDP is blocked; ${through} through TURN works: expect higher delay, and video that stalls when the network is busy.`,
    });
  }
  if (!m.media) {
    worsen('failed', {
      code: 'media-failed',
      severity: 'error',
      text: `Media could not be sent through the TURN server: ${m.mediaError ?? 'no answer'}.`,
    });
    return { verdict, findings };
  }

  const { throughputKbps: kbps, throughputAtLeast, rttMs, lossPct, jitterMs } = m.media;
  const rate = `${throughputAtLeast ? 'At least' : 'About'} ${Math.round(kbps)} kbit/s through the TURN server: ${videoAt(kbps)}.`;
  if (kbps < VERDICT_LIMITS.poorKbps) worsen('poor', { code: 'low-throughput', severity: 'error', text: rate });
  else if (kbps < VERDICT_LIMITS.goodKbps) worsen('fair', { code: 'low-throughput', severity: 'warning', text: rate });
  else findings.push({ code: 'throughput', severity: 'info', text: rate });
  if (rttMs && rttMs.avg >= VERDICT_LIMITS.fairRttMs) {
    worsen(rttMs.avg >= VERDICT_LIMITS.poorRttMs ? 'poor' : 'fair', {
      code: 'high-rtt',
      severity: rttMs.avg >= VERDICT_LIMITS.poorRttMs ? 'error' : 'warning',
      text: `The round trip to the TURN server takes ${Math.round(rttMs.avg)} ms: people will talk over each other.`,
    });
  }
  if (lossPct && lossPct.avg >= VERDICT_LIMITS.fairLossPct) {
    worsen(lossPct.avg >= VERDICT_LIMITS.poorLossPct ? 'poor' : 'fair', {
      code: 'loss',
      severity: lossPct.avg >= VERDICT_LIMITS.poorLossPct ? 'error' : 'warning',
      text: `${lossPct.avg.toFixed(1)} % of packets were lost: expect choppy audio and frozen video.${m.media.transport === 'udp' ? ' A wired connection, or sitting nearer the Wi-Fi, usually helps.' : ''}`,
    });
  }
  if (jitterMs && jitterMs.avg >= VERDICT_LIMITS.fairJitterMs) {
    worsen('fair', {
      code: 'jitter',
      severity: 'warning',
      text: `Packets arrive unevenly (${Math.round(jitterMs.avg)} ms jitter): audio may sound robotic.`,
    });
  }
  return { verdict, findings };
}

function deviceWords(device: 'camera' | 'microphone', status: string, error: string | undefined): string {
  const name = device[0]!.toUpperCase() + device.slice(1);
  if (status === 'denied')
    return `${name} access was refused: allow it in the browser's site settings (the icon in the address bar) and run the test again`;
  if (status === 'missing') return `No ${device} was found`;
  return `The ${device} failed${error ? ` (${error})` : ''}`;
}
