import { describe, expect, it } from 'vitest';
import type { StatEntry, StatsSnapshot } from '../stats.js';
import { MediaMeter } from './meter.js';

type Entry = { id: string; type: string; timestamp?: number; [field: string]: unknown };
const snapshot = (...entries: Entry[]): StatsSnapshot => new Map(entries.map((e): [string, StatEntry] => [e.id, { timestamp: 0, ...e }]));

/** The sending side as Chromium reports it: the pair named by its transport, RTCP round trips counted. */
function chromiumSender(second: number, relayProtocol = 'udp', loopRttMs = 40, estimateKbps?: number): StatsSnapshot {
  return snapshot(
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1' },
    {
      id: 'CP1',
      type: 'candidate-pair',
      localCandidateId: 'L1',
      remoteCandidateId: 'R1',
      currentRoundTripTime: 0.5,
      ...(estimateKbps === undefined ? {} : { availableOutgoingBitrate: estimateKbps * 1000 }),
    },
    { id: 'L1', type: 'local-candidate', candidateType: 'relay', protocol: 'udp', relayProtocol },
    { id: 'R1', type: 'remote-candidate', candidateType: 'relay', protocol: 'udp' },
    {
      id: 'RIV',
      type: 'remote-inbound-rtp',
      kind: 'video',
      roundTripTimeMeasurements: second,
      totalRoundTripTime: (second * loopRttMs) / 1000,
    },
  );
}

/**
 * The receiving side: the bytes and video packets so far; the tone (50 packets a second) lost half as
 * many of its packets as the video (whose are partly resent and recovered, the tone's never).
 */
function chromiumReceiver(second: number, bytesSoFar: number, lostSoFar: number, receivedSoFar: number): StatsSnapshot {
  return snapshot(
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1' },
    { id: 'CP1', type: 'candidate-pair', timestamp: second * 1000, bytesReceived: bytesSoFar },
    { id: 'IV', type: 'inbound-rtp', kind: 'video', packetsLost: lostSoFar, packetsReceived: receivedSoFar },
    {
      id: 'IA',
      type: 'inbound-rtp',
      kind: 'audio',
      jitter: 0.004,
      packetsLost: lostSoFar / 2,
      packetsReceived: second * 50 - lostSoFar / 2,
    },
  );
}

/** Feeds a meter seconds at the given rates (kbit/s) with loss (% of the video packets). */
function feed(
  meter: MediaMeter,
  start: { s: number; bytes: number; lost: number; received: number },
  seconds: { kbps: number; lossPct?: number }[],
  relay = 'udp',
) {
  for (const { kbps, lossPct = 0 } of seconds) {
    start.s++;
    start.bytes += (kbps * 1000) / 8;
    start.lost += lossPct;
    start.received += 100 - lossPct;
    meter.add(chromiumSender(start.s, relay), chromiumReceiver(start.s, start.bytes, start.lost, start.received));
  }
}

describe('the media meter of the pre-call test', () => {
  it('takes a step at what arrived once the sender settled, and stops raising the rate where the link is full', () => {
    const meter = new MediaMeter();
    const at = { s: 0, bytes: 0, lost: 0, received: 0 };
    meter.add(chromiumSender(0), chromiumReceiver(0, 0, 0, 0));
    // The sender climbs to the rate asked in the first half of a step: only the second half counts.
    feed(meter, at, [{ kbps: 300 }, { kbps: 700 }, { kbps: 980 }, { kbps: 1020 }]);
    expect(meter.endStep(1000)).toBe(false);
    feed(meter, at, [{ kbps: 1500 }, { kbps: 1300, lossPct: 4 }, { kbps: 1200, lossPct: 2 }, { kbps: 1180, lossPct: 2 }]);
    expect(meter.endStep(2000)).toBe(true);
    const media = meter.result({ iceMs: 100 }, 'udp');
    expect(media.steps).toEqual([
      { targetKbps: 1000, kbps: 1000, lossPct: 0 },
      // Of every packet that crossed in its settled half, the tone's too: 6 lost of 300.
      { targetKbps: 2000, kbps: 1190, lossPct: 2 },
    ]);
    // The throughput: the most that arrived in a second (the probe for 2000 filled the link's queue at first).
    expect(media).toMatchObject({ throughputKbps: 1500, throughputAtLeast: false, transport: 'udp' });
    // Half the loop's round trip: the browser's to the TURN server.
    expect(media.rttMs).toEqual({ min: 20, avg: 20, max: 20 });
    expect(media.jitterMs).toEqual({ min: 4, avg: 4, max: 4 });
    // The link's loss from the tone alone, over all its packets (4 of 400) and per second (2 of 50 at most).
    expect(media.lossPct).toEqual({ min: 0, avg: 1, max: 4 });
    expect(media.selectedPair).toEqual({ localType: 'relay', localProtocol: 'udp', relayProtocol: 'udp', remoteType: 'relay' });
  });

  it("takes an encoder that undershot as room, not a full link, while the sender's own estimate is above the rate asked", () => {
    const run = (estimateKbps: number) => {
      const meter = new MediaMeter();
      const at = { s: 0, bytes: 0, lost: 0, received: 0 };
      meter.add(chromiumSender(0), chromiumReceiver(0, 0, 0, 0));
      for (const kbps of [150, 170, 180]) {
        at.s++;
        at.bytes += (kbps * 1000) / 8;
        at.received += 100;
        meter.add(chromiumSender(at.s, 'udp', 40, estimateKbps), chromiumReceiver(at.s, at.bytes, 0, at.received));
      }
      return meter.endStep(250);
    };
    expect(run(600)).toBe(false);
    expect(run(200)).toBe(true);
  });

  it("reads Firefox's sender estimate from the target bytes its encoder was given", () => {
    const run = (targetKbps: number) => {
      const meter = new MediaMeter();
      const sender = (second: number) =>
        snapshot(
          { id: 'P', type: 'candidate-pair', selected: true },
          {
            id: 'OV',
            type: 'outbound-rtp',
            kind: 'video',
            timestamp: second * 1000,
            totalEncodedBytesTarget: (second * targetKbps * 1000) / 8,
          },
        );
      const receiver = (second: number) =>
        snapshot({ id: 'P', type: 'candidate-pair', selected: true, timestamp: second * 1000, bytesReceived: (second * 380 * 1000) / 8 });
      for (const second of [0, 1, 2, 3]) meter.add(sender(second), receiver(second));
      return meter.endStep(500);
    };
    // 380 of 500 kbit/s arrived: full when the encoder was told 390, room when it was told 500.
    expect(run(390)).toBe(true);
    expect(run(500)).toBe(false);
  });

  it('says the link may carry more when the top rate got through whole, and which way media went', () => {
    const meter = new MediaMeter();
    const at = { s: 0, bytes: 0, lost: 0, received: 0 };
    meter.add(chromiumSender(0, 'tls'), chromiumReceiver(0, 0, 0, 0));
    feed(meter, at, [{ kbps: 3000 }, { kbps: 3900 }], 'tls');
    expect(meter.endStep(4000)).toBe(false);
    expect(meter.result({}, 'udp')).toMatchObject({ throughputKbps: 3900, throughputAtLeast: true, transport: 'tls' });
  });

  it('reads Firefox: the pair flagged selected, no transport entry, round trips without their counts; a counter reset gives no rate', () => {
    const sender = (rtt: number) =>
      snapshot(
        { id: 'P', type: 'candidate-pair', selected: true, localCandidateId: 'L', remoteCandidateId: 'R' },
        { id: 'L', type: 'local-candidate', candidateType: 'relay', protocol: 'udp', relayProtocol: 'tcp' },
        { id: 'R', type: 'remote-candidate', candidateType: 'relay', protocol: 'udp' },
        { id: 'RV', type: 'remote-inbound-rtp', kind: 'video', roundTripTime: rtt },
      );
    const receiver = (ms: number, bytes: number) =>
      snapshot({ id: 'P', type: 'candidate-pair', selected: true, timestamp: ms, bytesReceived: bytes });
    const meter = new MediaMeter();
    meter.add(sender(0.06), receiver(1000, 1_000_000));
    meter.add(sender(0.08), receiver(2000, 1_125_000));
    // Bytes went backwards (a new pair): no second is made of it.
    meter.add(sender(0.08), receiver(3000, 10));
    meter.endStep(1000);
    const media = meter.result({}, 'udp');
    expect(media.steps).toEqual([{ targetKbps: 1000, kbps: 1000, lossPct: 0 }]);
    expect(media.rttMs).toEqual({ min: 40, avg: 40, max: 40 });
    expect(media.transport).toBe('tcp');
  });
});
