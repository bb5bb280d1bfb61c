import type { StatEntry } from '@rtcscope/sdk/recording';

/**
 * Recordings made up at test time, in the shapes Chrome's webrtc-internals page and rtcstats write, of
 * calls whose every value is known: each connection sends video at `sendKbps` (30 fps, 1280×720, RTT
 * 50 ms as the far end reports it) and receives audio losing 1 packet in 50 (2 %) at 32 kbit/s.
 */
export interface SyntheticRecording {
  startMs: number;
  seconds: number;
  connections: number;
  sendKbps: number;
  /** A loopback test page: each of two connections receives the video the other sends (not audio from afar). */
  loopback?: boolean;
  /** Each connection in a page (tab) of its own, as a dump of several tabs names them (`process-connection`). */
  pages?: boolean;
  /** Values browsers report that no stream can hold: Chrome's `audioLevel: -1` before a first packet, a frame width of 0. */
  quirks?: boolean;
  /** Each connection also receives a video that never carries a packet, as an SFU's placeholder or a paused feed. */
  placeholder?: boolean;
  /**
   * The page also opens a connection with a data channel alone that never connects (an analytics
   * service's IP-discovery probe), its ICE failing after 30 s; its descriptions kept without SDP, as
   * Jitsi's rtcstats writes them.
   */
  probe?: boolean;
  /** The round trip both ends measure, ms (EXPECTED.rttMs where not given): a long path's audio sounds fine and comes late. */
  rttMs?: number;
}

/** The probe's connection (`probe`): created, given a data channel, checking from the start, failed 30 s in. */
const PROBE = 'PC_probe';
function probeLines(r: SyntheticRecording): unknown[][] {
  return [
    ['create', PROBE, { iceServers: [{ urls: 'stun:stun.example:3478' }] }, r.startMs - 400],
    ['createDataChannel', PROBE, 'probe {"ordered":true}', r.startMs - 390],
    ['setLocalDescription', PROBE, '', r.startMs - 380],
    ['oniceconnectionstatechange', PROBE, 'checking', r.startMs - 300],
    ['oniceconnectionstatechange', PROBE, 'failed', r.startMs + 30_000],
  ];
}

export const EXPECTED = { fps: 30, rttMs: 50, audioLossPct: 2, audioKbps: 32, width: 1280, height: 720 } as const;

/** Connection `c`'s getStats report after `i` seconds. */
function syntheticReport(r: SyntheticRecording, c: number, i: number): StatEntry[] {
  const ts = r.startMs + i * 1000;
  const e = (id: string, type: string, fields: Record<string, unknown>, at = ts): StatEntry => ({ id, type, timestamp: at, ...fields });
  const ssrc = 1000 + c;
  return [
    e('T01', 'transport', { selectedCandidatePairId: 'CP1', dtlsState: 'connected' }),
    e('CP1', 'candidate-pair', {
      localCandidateId: 'L1',
      remoteCandidateId: 'R1',
      state: 'succeeded',
      nominated: true,
      bytesSent: i * (r.sendKbps + 40) * 125,
      bytesReceived: i * 4000,
      currentRoundTripTime: (r.rttMs ?? EXPECTED.rttMs) / 1000,
      availableOutgoingBitrate: 2_000_000,
    }),
    e('L1', 'local-candidate', { candidateType: 'host', protocol: 'udp', address: '127.0.0.1', port: 50000 }),
    e('R1', 'remote-candidate', { candidateType: 'host', protocol: 'udp', address: '127.0.0.1', port: 50001 }),
    e('COV', 'codec', { mimeType: 'video/VP8', payloadType: 96, clockRate: 90000 }),
    e('SV', 'media-source', { kind: 'video', frames: i * 30, framesPerSecond: 30, width: 1280, height: 720 }),
    e(`OTV${ssrc}`, 'outbound-rtp', {
      kind: 'video',
      ssrc,
      codecId: 'COV',
      mediaSourceId: 'SV',
      bytesSent: i * r.sendKbps * 125,
      packetsSent: i * 100,
      framesEncoded: i * 30,
      // The encoder's quantizer climbs a step a second (its sum over every frame encoded so far).
      qpSum: 30 * (20 * i + (i * (i - 1)) / 2),
      // 4 ms a frame, 5 from the tenth second.
      totalEncodeTime: (i * 30 * 4 + Math.max(0, i - 10) * 30) / 1000,
      framesSent: i * 30,
      framesPerSecond: 30,
      frameWidth: r.quirks ? 0 : 1280,
      frameHeight: 720,
      qualityLimitationReason: 'none',
      nackCount: 0,
      pliCount: 0,
      firCount: 0,
      remoteId: `RIV${ssrc}`,
    }),
    // The far end's report carries the far end's time, a little behind the local poll.
    e(
      `RIV${ssrc}`,
      'remote-inbound-rtp',
      {
        kind: 'video',
        ssrc,
        localId: `OTV${ssrc}`,
        packetsLost: 0,
        fractionLost: 0,
        jitter: 0.002,
        roundTripTime: (r.rttMs ?? EXPECTED.rttMs) / 1000,
        roundTripTimeMeasurements: i,
      },
      ts - 300,
    ),
    // Chrome stamps the objects of one report a millisecond or so apart.
    r.loopback
      ? e(
          `ITV${2001 - ssrc}`,
          'inbound-rtp',
          {
            kind: 'video',
            ssrc: 2001 - ssrc,
            bytesReceived: i * r.sendKbps * 125,
            packetsReceived: i * 100,
            packetsLost: 0,
            jitter: 0.004,
            framesDecoded: i * 30,
            qpSum: i * 30 * 25,
            frameWidth: 1280,
            frameHeight: 720,
          },
          ts + 1.2,
        )
      : e(
          `ITA${ssrc + 500}`,
          'inbound-rtp',
          {
            kind: 'audio',
            ssrc: ssrc + 500,
            bytesReceived: i * 4000,
            packetsReceived: i * 49,
            packetsLost: i,
            jitter: 0.004,
            audioLevel: r.quirks ? -1 : 0.1,
          },
          ts + 1.2,
        ),
    ...(r.placeholder
      ? [
          e(`ITV${ssrc + 700}`, 'inbound-rtp', {
            kind: 'video',
            ssrc: ssrc + 700,
            bytesReceived: 0,
            packetsReceived: 0,
            packetsLost: 0,
            framesDecoded: 0,
          }),
        ]
      : []),
  ];
}

/** A webrtc-internals "Create dump" file of the recording, as its text. */
export function webrtcInternalsDump(r: SyntheticRecording): string {
  const connections: Record<string, unknown> = {};
  for (let c = 0; c < r.connections; c++) {
    const stats: Record<string, unknown> = {};
    const reports = Array.from({ length: r.seconds + 1 }, (_, i) => syntheticReport(r, c, i));
    for (const entry of reports[0]!) {
      const series = reports.map((report) => report.find((x) => x.id === entry.id)!);
      const { id, type, ...fields } = entry;
      for (const field of Object.keys(fields)) {
        stats[`${id}-${field}`] = {
          startTime: new Date(series[0]!.timestamp).toISOString(),
          endTime: new Date(series.at(-1)!.timestamp).toISOString(),
          statsType: type,
          values: JSON.stringify(series.map((x) => x[field])),
        };
      }
    }
    connections[r.pages ? `${c + 1}-1` : `1-${c + 1}`] = {
      pid: r.pages ? c + 1 : 1,
      url: 'https://app.example/room',
      rtcConfiguration: '{ iceServers: [] }',
      stats,
      updateLog: [
        { type: 'iceconnectionstatechange', value: 'checking', timestamp: r.startMs - 200 },
        { type: 'iceconnectionstatechange', value: 'connected', timestamp: r.startMs - 100 },
      ],
    };
  }
  return JSON.stringify({
    getUserMedia: [],
    PeerConnections: connections,
    UserAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    UserAgentData: [],
  });
}

/**
 * An rtcstats dump of the recording: file format 3 (times as deltas) with full reports, or the older
 * form the `@jitsi/rtcstats` client sends (epoch times fourth) with delta-compressed reports.
 */
export function rtcstatsDump(r: SyntheticRecording, form: 'format3' | 'jitsi'): string {
  const lines: unknown[][] = [];
  for (let c = 0; c < r.connections; c++) {
    lines.push(['create', `PC_${c}`, { iceServers: [] }, r.startMs - 500]);
    lines.push(['oniceconnectionstatechange', `PC_${c}`, 'connected', r.startMs - 100]);
  }
  if (r.probe) lines.push(...probeLines(r));
  for (let i = 0; i <= r.seconds; i++) {
    for (let c = 0; c < r.connections; c++) {
      const report = Object.fromEntries(syntheticReport(r, c, i).map((e) => [e.id, { ...e }]));
      const value =
        form === 'jitsi' ? compress(i ? Object.fromEntries(syntheticReport(r, c, i - 1).map((e) => [e.id, e])) : {}, report) : report;
      lines.push(['getstats', `PC_${c}`, value, r.startMs + i * 1000]);
    }
  }
  lines.sort((a, b) => (a[3] as number) - (b[3] as number));
  if (form === 'jitsi') return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  let clock = 0;
  const body = lines.map(([method, pc, value, ts]) => {
    const delta = (ts as number) - clock;
    clock = ts as number;
    return JSON.stringify([method === 'getstats' ? 'getStats' : method, pc, value, delta]);
  });
  return (
    [
      'RTCStatsDump',
      JSON.stringify({ fileFormat: 3, userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' }),
      ...body,
    ].join('\n') + '\n'
  );
}

/** What the rtcstats client sends: unchanged fields left out, and the newest time said once for the line. */
function compress(previous: Record<string, StatEntry>, report: Record<string, StatEntry>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let newest = -Infinity;
  for (const [id, entry] of Object.entries(report)) {
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(entry)) if (k !== 'id' && previous[id]?.[k] !== v) changed[k] = v;
    out[id] = changed;
    newest = Math.max(newest, entry.timestamp);
  }
  for (const changed of Object.values(out) as Record<string, unknown>[]) if (changed.timestamp === newest) changed.timestamp = 0;
  out.timestamp = newest;
  return out;
}
