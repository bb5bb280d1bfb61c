import { counterDelta, kbpsFromBytes, lossPercent, mean } from '@rtcscope/metrics';
import type { PrecallMedia, PrecallTransport } from '@rtcscope/protocol';
import { num, ofType, selectedCandidatePair, type StatEntry, type StatsSnapshot, str } from '../stats.js';

type Step = PrecallMedia['steps'][number];
type Spread = NonNullable<PrecallMedia['rttMs']>;

/** A step whose rate arrived short of the rate asked by more than this: the link is full. */
const SATURATED = 0.8;

interface Second {
  kbps: number;
  lost: number;
  received: number;
  /** What the sender thinks the link carries, kbit/s, where the browser says (senderEstimate). */
  estimateKbps: number | null;
}

/**
 * Reads, second by second, the sending (`a`) and the receiving (`b`) connection of the relay pair: what
 * arrived (every byte of the selected candidate pair, so headers, audio and retransmissions count, as
 * they do on the link), what was lost, the round trip and the jitter.
 */
export class MediaMeter {
  private prev: { a: StatsSnapshot; b: StatsSnapshot } | undefined;
  private seconds: Second[] = [];
  /** The most that arrived in one second: the link's capacity when it was full. */
  private peakKbps = 0;
  readonly steps: Step[] = [];
  private readonly rtts: number[] = [];
  private readonly jitters: number[] = [];
  private readonly losses: number[] = [];
  private readonly audio = { lost: 0, received: 0 };

  add(a: StatsSnapshot, b: StatsSnapshot): void {
    const prev = this.prev;
    this.prev = { a, b };
    this.jitters.push(
      ...ofType(b, 'inbound-rtp').flatMap((rtp) =>
        kindOf(rtp) === 'audio' && num(rtp, 'jitter') !== undefined ? [num(rtp, 'jitter')! * 1000] : [],
      ),
    );
    if (!prev) return;
    const rtt = loopRtt(prev.a, a);
    if (rtt !== undefined) this.rtts.push(rtt / 2);
    const pairNow = selectedCandidatePair(b);
    const pairBefore = pairNow && prev.b.get(pairNow.id);
    const kbps = kbpsFromBytes(
      counterDelta(num(pairBefore, 'bytesReceived'), num(pairNow, 'bytesReceived')),
      (pairNow?.timestamp ?? 0) - (pairBefore?.timestamp ?? 0),
    );
    if (kbps === null) return;
    let lost = 0;
    let received = 0;
    for (const rtp of ofType(b, 'inbound-rtp')) {
      // A receiver may count fewer lost than before (late packets): a second's loss is never below none.
      const streamLost = Math.max(0, delta(prev.b.get(rtp.id), rtp, 'packetsLost') ?? 0);
      const streamReceived = counterDelta(num(prev.b.get(rtp.id), 'packetsReceived'), num(rtp, 'packetsReceived')) ?? 0;
      lost += streamLost;
      received += streamReceived;
      // The link's own loss from the tone: video packets resent after a NACK count as received, audio is never resent.
      if (kindOf(rtp) === 'audio') {
        this.audio.lost += streamLost;
        this.audio.received += streamReceived;
        const second = lossPercent(streamReceived, streamLost);
        if (second !== null && streamLost + streamReceived > 0) this.losses.push(second);
      }
    }
    this.seconds.push({ kbps, lost, received, estimateKbps: senderEstimate(prev.a, a) });
  }

  /**
   * Whether the link could not carry the rate asked so far in this step: less arrived than asked, and the
   * sender's own estimate of the link (where the browser says it) is under the rate asked too — an
   * encoder that undershot on a link with room is not a full link.
   */
  full(targetKbps: number): boolean {
    const settled = this.settled();
    const kbps = mean(settled.map((s) => s.kbps)) ?? 0;
    const estimates = settled.flatMap((s) => s.estimateKbps ?? []);
    return kbps < SATURATED * targetKbps && (estimates.length === 0 || mean(estimates)! < targetKbps);
  }

  /** The most that arrived in a second of this step so far, kbit/s. */
  stepPeak(): number {
    return Math.max(0, ...this.seconds.map((s) => s.kbps));
  }

  /** Closes the step that asked for `targetKbps`; true when the link was full. */
  endStep(targetKbps: number): boolean {
    const full = this.full(targetKbps);
    const settled = this.settled();
    const lost = settled.reduce((s, x) => s + x.lost, 0);
    const received = settled.reduce((s, x) => s + x.received, 0);
    this.steps.push({ targetKbps, kbps: round(mean(settled.map((s) => s.kbps)) ?? 0), lossPct: round(lossPercent(received, lost) ?? 0) });
    // Where the link is full, the sender's probe for the new rate fills its queue early in the step and
    // then backs off, and creeps back toward the link's rate: the most that arrived in any second of the
    // step is the link's rate.
    this.peakKbps = Math.max(this.peakKbps, ...this.seconds.map((s) => s.kbps));
    this.seconds = [];
    return full;
  }

  /** The step's seconds after its first half, the sender finding the new rate. */
  private settled(): Second[] {
    return this.seconds.slice(Math.floor(this.seconds.length / 2));
  }

  result(networkTiming: PrecallMedia['networkTiming'], fallbackTransport: PrecallTransport): PrecallMedia {
    const top = this.steps.at(-1);
    const pair = selectedPair(this.prev?.a);
    const spread = (values: number[]): Spread | undefined =>
      values.length ? { min: round(Math.min(...values)), avg: round(mean(values)!), max: round(Math.max(...values)) } : undefined;
    const rttMs = spread(this.rtts);
    const jitterMs = spread(this.jitters);
    const lossSpread = spread(this.losses);
    // The mean over every packet, not over seconds.
    const lossPct = lossSpread && { ...lossSpread, avg: round(lossPercent(this.audio.received, this.audio.lost) ?? 0) };
    return {
      transport: pair?.relayProtocol ?? fallbackTransport,
      networkTiming,
      ...(pair ? { selectedPair: pair } : {}),
      steps: this.steps,
      throughputKbps: round(this.peakKbps),
      throughputAtLeast: top !== undefined && top.kbps >= SATURATED * top.targetKbps,
      ...(rttMs ? { rttMs } : {}),
      ...(jitterMs ? { jitterMs } : {}),
      ...(lossPct ? { lossPct } : {}),
    };
  }
}

const round = (v: number) => Math.round(v * 10) / 10;

function kindOf(rtp: StatEntry): string | undefined {
  return str(rtp, 'kind') ?? str(rtp, 'mediaType');
}

function delta(before: StatEntry | undefined, now: StatEntry | undefined, field: string): number | undefined {
  const a = num(before, field);
  const b = num(now, field);
  return a === undefined || b === undefined ? undefined : b - a;
}

/**
 * The loop's round trip in the last second, ms: the mean of the RTCP measurements the sender's streams
 * got in it (their totals over their counts), else the streams' latest (a browser without the counts),
 * else the candidate pair's latest STUN round trip.
 */
function loopRtt(before: StatsSnapshot, now: StatsSnapshot): number | undefined {
  let total = 0;
  let count = 0;
  for (const r of ofType(now, 'remote-inbound-rtp')) {
    const n = delta(before.get(r.id), r, 'roundTripTimeMeasurements');
    const t = delta(before.get(r.id), r, 'totalRoundTripTime');
    if (n && t !== undefined && n > 0) {
      total += t;
      count += n;
    }
  }
  if (count) return (1000 * total) / count;
  const latest = ofType(now, 'remote-inbound-rtp').flatMap((r) => num(r, 'roundTripTime') ?? []);
  if (latest.length) return 1000 * Math.max(...latest);
  const pair = selectedCandidatePair(now);
  const rtt = num(pair, 'currentRoundTripTime');
  return rtt === undefined ? undefined : rtt * 1000;
}

/**
 * What the sender thinks the link carries, kbit/s: Chromium's bandwidth estimate, else the rate its video
 * encoder was told to make (the estimate, or the rate asked if lower: Firefox gives only the target
 * bytes of each frame), else nothing.
 */
function senderEstimate(before: StatsSnapshot, now: StatsSnapshot): number | null {
  const available = num(selectedCandidatePair(now), 'availableOutgoingBitrate');
  if (available !== undefined) return available / 1000;
  const video = ofType(now, 'outbound-rtp').find((r) => kindOf(r) === 'video');
  const target = num(video, 'targetBitrate');
  if (target !== undefined) return target / 1000;
  const prior = video && before.get(video.id);
  return kbpsFromBytes(
    counterDelta(num(prior, 'totalEncodedBytesTarget'), num(video, 'totalEncodedBytesTarget')),
    (video?.timestamp ?? 0) - (prior?.timestamp ?? 0),
  );
}

const CANDIDATE_TYPES = new Set(['host', 'srflx', 'prflx', 'relay']);
const TRANSPORTS = new Set(['udp', 'tcp', 'tls']);

function selectedPair(snapshot: StatsSnapshot | undefined): PrecallMedia['selectedPair'] {
  const pair = snapshot && selectedCandidatePair(snapshot);
  const local = pair && snapshot.get(str(pair, 'localCandidateId') ?? '');
  const remote = pair && snapshot.get(str(pair, 'remoteCandidateId') ?? '');
  const localType = str(local, 'candidateType');
  const remoteType = str(remote, 'candidateType');
  if (!localType || !remoteType || !CANDIDATE_TYPES.has(localType) || !CANDIDATE_TYPES.has(remoteType)) return undefined;
  const relayProtocol = str(local, 'relayProtocol');
  return {
    localType: localType as NonNullable<PrecallMedia['selectedPair']>['localType'],
    localProtocol: (str(local, 'protocol') ?? 'udp').slice(0, 8),
    ...(relayProtocol && TRANSPORTS.has(relayProtocol) ? { relayProtocol: relayProtocol as PrecallTransport } : {}),
    remoteType: remoteType as NonNullable<PrecallMedia['selectedPair']>['remoteType'],
  };
}
