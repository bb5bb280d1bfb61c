import {
  type CallDetail,
  type CallEvents,
  CONNECTION_FIELDS,
  type EventType,
  type FieldSpec,
  QUALITY_LIMITATIONS,
  type Series,
  STREAM_FIELDS,
} from '@rtcscope/protocol';
import { RECORDED_EVENTS } from './sink.js';

/** A point's values by field name. */
const reader = (specs: readonly FieldSpec[]) => {
  const at = new Map(specs.map((f, k) => [f.name, k]));
  return (values: (number | null)[]) =>
    (name: string): number | null =>
      values[at.get(name)!] ?? null;
};
const streamValues = reader(STREAM_FIELDS);
const connectionValues = reader(CONNECTION_FIELDS);

/** What the API's own events were called on the RTCPeerConnection, as rtcstats clients log them. */
const METHODS = new Map<string, string>([
  ['connection-added', 'create'],
  ['connection-removed', 'close'],
  ...Object.entries(RECORDED_EVENTS)
    .filter(([method]) => method.startsWith('on'))
    .map(([method, type]): [EventType, string] => [type, method]),
]);

/** Counters rebuilt from per-interval values: each interval adds its count, or its rate times its length. */
class Counters {
  private readonly sums = new Map<string, number>();
  /** The counter after this interval: whole (packets, bytes) unless it counts seconds. */
  add(name: string, amount: number | null, whole = true): number {
    const sum = (this.sums.get(name) ?? 0) + (amount ?? 0);
    this.sums.set(name, sum);
    return whole ? Math.round(sum) : sum;
  }
}

/**
 * A call as an rtcstats dump (file format 3: `RTCStatsDump`, a metadata line, then
 * `[method, connection, value, ms since the line before]`), which rtcstats tools and rtcscope itself
 * read back: each connection's samples as the getStats reports that give them (counters rebuilt from
 * the intervals' rates and counts), and its events as the API's. Connections are named
 * `participant:connection`, and the metadata line's `participants` says whose each is.
 */
export function callRtcstats({ detail, series, events }: { detail: CallDetail; series: Series; events: CallEvents }): string {
  const lines: { ts: number; entry: unknown[] }[] = [];
  const pcName = new Map<number, string>();
  for (const p of detail.participants) for (const c of p.connections) pcName.set(c.id, `${p.id}:${c.key}`);

  for (const e of events.events) {
    const method = METHODS.get(e.type);
    const pc = e.connectionId === null ? null : (pcName.get(e.connectionId) ?? null);
    if (method && pc) lines.push({ ts: e.ts, entry: [method, pc, method === 'create' ? {} : e.detail] });
  }
  for (const p of detail.participants) {
    for (const c of p.connections) {
      const times = new Map<number, { connection?: (number | null)[]; streams: Map<number, (number | null)[]> }>();
      const at = (ts: number) => times.get(ts) ?? times.set(ts, { streams: new Map() }).get(ts)!;
      const streamIds = new Set(c.streams.map((s) => s.id));
      for (const pt of series.streams) if (streamIds.has(pt.id)) at(pt.ts).streams.set(pt.id, pt.v);
      for (const pt of series.connections) if (pt.id === c.id) at(pt.ts).connection = pt.v;
      const counters = new Counters();
      let previous: number | null = null;
      for (const ts of [...times.keys()].sort((a, b) => a - b)) {
        const dtS = previous === null ? 0 : (ts - previous) / 1000;
        previous = ts;
        const { connection, streams } = times.get(ts)!;
        const report: Record<string, Record<string, unknown>> = {};
        const entry = (id: string, type: string, fields: Record<string, unknown>) =>
          (report[id] = { id, type, timestamp: ts, ...withoutNulls(fields) });
        if (connection) {
          const v = connectionValues(connection);
          entry('T', 'transport', { selectedCandidatePairId: 'CP' });
          entry('CP', 'candidate-pair', {
            localCandidateId: 'L',
            remoteCandidateId: 'R',
            state: 'succeeded',
            nominated: true,
            currentRoundTripTime: seconds(v('rttMs')),
            availableOutgoingBitrate: bits(v('availableOutKbps')),
            availableIncomingBitrate: bits(v('availableInKbps')),
            bytesSent: counters.add('sent', bytes(v('sentKbps'), dtS)),
            bytesReceived: counters.add('received', bytes(v('receivedKbps'), dtS)),
          });
          entry('L', 'local-candidate', { candidateType: c.localCandidateType, protocol: c.localProtocol });
          entry('R', 'remote-candidate', { candidateType: c.remoteCandidateType, protocol: c.remoteProtocol });
        }
        for (const s of c.streams) {
          const raw = streams.get(s.id);
          if (!raw) continue;
          const v = streamValues(raw);
          const id = `${s.direction === 'out' ? 'OT' : 'IT'}${s.kind === 'audio' ? 'A' : 'V'}${s.ssrc}`;
          const count = (name: string, amount: number | null, whole = true) => counters.add(`${id} ${name}`, amount, whole);
          const codecId = s.codec ? `C${id}` : undefined;
          if (codecId) entry(codecId, 'codec', { mimeType: `${s.kind}/${s.codec}` });
          const common = {
            kind: s.kind,
            ssrc: s.ssrc,
            codecId,
            nackCount: count('nack', v('nack')),
            pliCount: count('pli', v('pli')),
            firCount: count('fir', v('fir')),
            framesPerSecond: v('fps'),
            // The mean quantizer over the interval's frames, as the sum the browser reports.
            qpSum: count('qpSum', scaled(v('qp'), v('frames') ?? 0), false),
            frameWidth: v('width'),
            frameHeight: v('height'),
          };
          if (s.direction === 'out') {
            const sourceId = `S${id}`;
            entry(id, 'outbound-rtp', {
              ...common,
              rid: s.rid,
              encoderImplementation: s.implementation,
              mediaSourceId: sourceId,
              bytesSent: count('bytes', bytes(v('kbps'), dtS)),
              packetsSent: count('packets', v('packets')),
              framesEncoded: count('frames', v('frames')),
              // Seconds spent encoding, as the sum the browser reports: the mean per frame times its frames.
              totalEncodeTime: count('encodeTime', scaled(v('encodeMs'), (v('frames') ?? 0) / 1000), false),
              qualityLimitationReason: QUALITY_LIMITATIONS[v('qualityLimitation') ?? -1],
            });
            entry(sourceId, 'media-source', {
              kind: s.kind,
              audioLevel: v('audioLevel'),
              framesPerSecond: v('captureFps'),
              frames: count('captured', scaled(v('captureFps'), dtS)),
            });
            entry(`RI${id}`, 'remote-inbound-rtp', {
              kind: s.kind,
              ssrc: s.ssrc,
              localId: id,
              roundTripTime: seconds(v('rttMs')),
              jitter: seconds(v('jitterMs')),
              packetsLost: count('lost', v('packetsLost')),
              fractionLost: scaled(v('lossPct'), 0.01),
            });
          } else {
            const samples = s.kind === 'audio' ? 48_000 * dtS : 0;
            // The jitter buffer's mean delay is its delay summed over what it emitted: one item an interval will do.
            const emitted = v('jitterBufferMs') === null ? null : 1;
            entry(id, 'inbound-rtp', {
              ...common,
              decoderImplementation: s.implementation,
              bytesReceived: count('bytes', bytes(v('kbps'), dtS)),
              packetsReceived: count('packets', v('packets')),
              packetsLost: count('lost', v('packetsLost')),
              jitter: seconds(v('jitterMs')),
              framesDecoded: count('frames', v('frames')),
              framesDropped: count('dropped', v('framesDropped')),
              freezeCount: count('freezes', v('freezes')),
              totalFreezesDuration: count('freezeS', seconds(v('freezeMs')), false),
              jitterBufferDelay: emitted === null ? null : count('jbDelay', seconds(v('jitterBufferMs')), false),
              jitterBufferEmittedCount: emitted === null ? null : count('jbEmitted', emitted),
              audioLevel: v('audioLevel'),
              totalSamplesReceived: s.kind === 'audio' ? count('samples', samples) : null,
              concealedSamples: s.kind === 'audio' ? count('concealed', scaled(v('concealedPct'), samples / 100)) : null,
              concealmentEvents: s.kind === 'audio' ? count('gaps', gaps(v('concealedPct'), v('concealmentEventMs'), dtS)) : null,
              remoteId: `RO${id}`,
            });
            entry(`RO${id}`, 'remote-outbound-rtp', { kind: s.kind, ssrc: s.ssrc, localId: id, roundTripTime: seconds(v('rttMs')) });
          }
        }
        lines.push({ ts, entry: ['getStats', pcName.get(c.id)!, report] });
      }
    }
  }
  lines.sort((a, b) => a.ts - b.ts);
  let clock = 0;
  const body = lines.map(({ ts, entry }) => {
    const delta = ts - clock;
    clock = ts;
    return JSON.stringify([...entry, delta]);
  });
  // Whose each connection is, so that the file imports as the same participants (rtcstats tools ignore it).
  const participants = Object.fromEntries(detail.participants.flatMap((p) => p.connections.map((c) => [pcName.get(c.id)!, p.id])));
  const meta = {
    fileFormat: 3,
    exportedBy: 'rtcscope',
    callId: detail.call.id,
    startedAt: new Date(detail.call.startedAt).toISOString(),
    participants,
  };
  return ['RTCStatsDump', JSON.stringify(meta), ...body].join('\n') + '\n';
}

/** Concealment events in an interval, from how much was concealed and how long each gap lasted. */
function gaps(concealedPct: number | null, gapMs: number | null, dtS: number): number | null {
  if (concealedPct === null || gapMs === null) return null;
  return gapMs === 0 ? 0 : ((concealedPct / 100) * dtS * 1000) / gapMs;
}

const scaled = (v: number | null, factor: number) => (v === null ? null : v * factor);
const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : ms / 1000);
const bits = (kbps: number | null | undefined) => (kbps === null || kbps === undefined ? null : Math.round(kbps * 1000));
const bytes = (kbps: number | null | undefined, dtS: number) => (kbps === null || kbps === undefined ? null : kbps * 125 * dtS);

function withoutNulls(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
}
