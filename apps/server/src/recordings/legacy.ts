import type { StatEntry, StatsSnapshot } from '@rtcscope/sdk/recording';

/**
 * Chrome's legacy (callback) getStats, as old webrtc-internals dumps and rtcstats files hold it. A
 * report holding the standard's RTP objects too (clients of 2019–2021 collected both) is read as the
 * standard's: its legacy objects are left aside, not read twice.
 */
export function isLegacySnapshot(snapshot: StatsSnapshot): boolean {
  let legacy = false;
  for (const e of snapshot.values()) {
    if (e.type === 'inbound-rtp' || e.type === 'outbound-rtp') return false;
    if (e.type === 'ssrc' || e.type === 'googCandidatePair') legacy = true;
  }
  return legacy;
}

/** A connection's received streams' jitter buffers so far, by legacy id, in the standard's cumulative counters. */
export type LegacyBuffers = Map<string, { delayS: number; emitted: number; packets: number }>;

/**
 * A received stream's jitter buffer (legacy `googJitterBufferMs`, the delay it holds now) as the standard's
 * cumulative `jitterBufferDelay` and `jitterBufferEmittedCount`, a packet standing for what it emits: each
 * report adds the delay now for each packet received since the last, so the mean over a report's interval
 * that normalize() takes is that delay. Without it a legacy recording's jitter is judged without its
 * buffer, and one packet's jitter on a stream that stops (54 ms, a 4-ms buffer) reads as a person's delay.
 */
function bufferCounters(
  buffers: LegacyBuffers,
  id: string,
  packets: number | undefined,
  bufferMs: number | undefined,
): { jitterBufferDelay?: number; jitterBufferEmittedCount?: number } {
  if (packets === undefined || bufferMs === undefined) return {};
  const last = buffers.get(id) ?? { delayS: 0, emitted: 0, packets };
  const added = Math.max(0, packets - last.packets);
  const now = { delayS: last.delayS + (bufferMs / 1000) * added, emitted: last.emitted + added, packets };
  buffers.set(id, now);
  return { jitterBufferDelay: now.delayS, jitterBufferEmittedCount: now.emitted };
}

const CANDIDATE_TYPES: Readonly<Record<string, string>> = {
  local: 'host',
  host: 'host',
  stun: 'srflx',
  serverreflexive: 'srflx',
  peerreflexive: 'prflx',
  prflx: 'prflx',
  relay: 'relay',
  relayed: 'relay',
};

/**
 * The legacy report in the standard's shapes, so it goes through the same `normalize()`: each `ssrc`
 * object as an inbound- or outbound-rtp (a sent one with the far end's loss, RTT and jitter as its
 * remote-inbound-rtp), the active `googCandidatePair` as the selected pair with the `VideoBwe`
 * estimates, candidates with their standard types. Legacy values are often text: numbers are read back.
 * `buffers` carries a connection's received streams' jitter buffers from one of its reports to the next.
 */
export function standardFromLegacy(legacy: StatsSnapshot, buffers: LegacyBuffers): StatsSnapshot {
  const out = new Map<string, StatEntry>();
  const put = (e: StatEntry) => out.set(e.id, e);
  const bwe = [...legacy.values()].find((e) => e.type === 'VideoBwe');
  for (const e of legacy.values()) {
    const n = (field: string) => number(e[field]);
    const base = { id: e.id, timestamp: e.timestamp };
    if (e.type === 'ssrc') {
      const ssrc = n('ssrc') ?? Number(/ssrc_(\d+)/.exec(e.id)?.[1]);
      const kind = e.mediaType;
      const codecId = `${e.id}-codec`;
      const codec = typeof e.googCodecName === 'string' && e.googCodecName ? e.googCodecName : undefined;
      if (codec) put({ id: codecId, type: 'codec', timestamp: e.timestamp, mimeType: `${String(kind)}/${codec}` });
      const sent = e.id.endsWith('_send') || n('bytesSent') !== undefined;
      if (sent) {
        const remoteId = `${e.id}-remote`;
        put({
          ...base,
          type: 'outbound-rtp',
          ssrc,
          kind,
          bytesSent: n('bytesSent'),
          packetsSent: n('packetsSent'),
          framesEncoded: n('framesEncoded'),
          qpSum: n('qpSum'),
          frameWidth: n('googFrameWidthSent'),
          frameHeight: n('googFrameHeightSent'),
          framesPerSecond: n('googFrameRateSent'),
          nackCount: n('googNacksReceived'),
          pliCount: n('googPlisReceived'),
          firCount: n('googFirsReceived'),
          qualityLimitationReason: flag(e.googCpuLimitedResolution)
            ? 'cpu'
            : flag(e.googBandwidthLimitedResolution)
              ? 'bandwidth'
              : kind === 'video'
                ? 'none'
                : undefined,
          ...(codec ? { codecId } : {}),
        });
        put({
          id: remoteId,
          type: 'remote-inbound-rtp',
          timestamp: e.timestamp,
          localId: e.id,
          ssrc,
          kind,
          packetsLost: n('packetsLost'),
          roundTripTime: seconds(n('googRtt')),
          jitter: seconds(n('googJitterReceived')),
        });
      } else {
        put({
          ...base,
          type: 'inbound-rtp',
          ssrc,
          kind,
          bytesReceived: n('bytesReceived'),
          packetsReceived: n('packetsReceived'),
          packetsLost: n('packetsLost'),
          jitter: seconds(n('googJitterReceived')),
          ...bufferCounters(buffers, e.id, n('packetsReceived'), n('googJitterBufferMs')),
          framesDecoded: n('framesDecoded'),
          qpSum: n('qpSum'),
          frameWidth: n('googFrameWidthReceived'),
          frameHeight: n('googFrameHeightReceived'),
          framesPerSecond: n('googFrameRateOutput') ?? n('googFrameRateReceived'),
          nackCount: n('googNacksSent'),
          pliCount: n('googPlisSent'),
          firCount: n('googFirsSent'),
          ...(codec ? { codecId } : {}),
        });
      }
    } else if (e.type === 'googCandidatePair' && flag(e.googActiveConnection)) {
      put({
        ...base,
        type: 'candidate-pair',
        selected: true,
        localCandidateId: e.localCandidateId,
        remoteCandidateId: e.remoteCandidateId,
        currentRoundTripTime: seconds(n('googRtt')),
        bytesSent: n('bytesSent'),
        bytesReceived: n('bytesReceived'),
        availableOutgoingBitrate: number(bwe?.googAvailableSendBandwidth),
        availableIncomingBitrate: number(bwe?.googAvailableReceiveBandwidth),
      });
    } else if (e.type === 'localcandidate' || e.type === 'remotecandidate') {
      put({
        ...base,
        type: e.type === 'localcandidate' ? 'local-candidate' : 'remote-candidate',
        candidateType: CANDIDATE_TYPES[String(e.candidateType)],
        protocol: e.transport,
      });
    }
  }
  return out;
}

function number(v: unknown): number | undefined {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(x) ? x : undefined;
}

const flag = (v: unknown) => v === true || v === 'true';
const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
