import type { Conditions, Ramp, Scenario, Step } from './schema.js';

/**
 * Built-in scenarios: the experiments of shared/reference/EXPERIMENTS.md, each citing its source and
 * carrying the paper's figures where it has some. The papers ran 1080p50 (Jansen) and VGA/720p sources on
 * Chrome 27–57; these use a 1280x720 30 fps source (less for the multiparty ones) so a lab host of 2 cores
 * can run them.
 */
const JANSEN = 'Jansen et al. 2017, "Performance Evaluation of WebRTC-based Video Conferencing"';
const SINGH = 'Singh, Lozano, Ott 2013, "Performance Analysis of Receive-Side Real-Time Congestion Control for WebRTC"';

const pair = (codec: Scenario['participants']['codec'] = 'VP8'): Scenario['participants'] => ({
  count: 2,
  topology: 'pair',
  codec,
  video: { width: 1280, height: 720, fps: 30 },
});
const open: Conditions = { rateKbps: null, delayMs: 0, loss: { model: 'random', pct: 0 } };
const both = { mode: 'per-participant', uplink: open, downlink: open } as const;
/**
 * The papers set a path's loss and delay, where the lab's per-participant links are two a packet crosses
 * (its sender's uplink, its receiver's downlink): each link gets the loss that makes the two lose `pct`,
 * and half the one-way delay (a quarter of an RTT).
 */
const pathLoss = (pct: number): Conditions['loss'] => ({ model: 'random', pct: Math.round(1e8 * (1 - Math.sqrt(1 - pct / 100))) / 1e6 });
const oneWay = (ms: number) => ms / 2;

/** One step per `everyS` seconds, each setting what `set(value)` says. */
function steps<T>(values: T[], everyS: number, set: (v: T) => Conditions): Step[] {
  return values.map((v, k) => ({ at: k * everyS, set: set(v) }));
}

const base = { schedule: [] as (Step | Ramp)[], repetitions: 1, timeScale: 1 };

/**
 * Each person's video in the multiparty scenarios: 640x360 at 15 fps. Three or four people at 30 fps
 * overload a 2-core lab host whatever the topology (RTT 100–500 ms and 12–19 fps received on unimpaired
 * links, 2026-11-27); at 15 fps three through Janus run at an 8 ms RTT, every frame received.
 */
const MULTIPARTY_VIDEO = { width: 640, height: 360, fps: 15 };

/** Jansen's Table 4, minute by minute: RTT 0→500→0 ms (one way 250), a 1250 kbit/s cap, 15 % loss. */
const TABLE_4: (Step | Ramp)[] = [
  { at: 60, set: { rateKbps: 1250 } },
  { at: 120, until: 150, ramp: { param: 'delayMs', from: 0, to: oneWay(250), shape: 'linear' } },
  { at: 150, until: 180, ramp: { param: 'delayMs', from: oneWay(250), to: 0, shape: 'linear' } },
  { at: 180, set: { rateKbps: null, delayMs: 0 } },
  { at: 240, set: { loss: pathLoss(15) } },
  { at: 300, set: { loss: pathLoss(0) } },
  { at: 360, set: { rateKbps: 1250 } },
  { at: 360, until: 420, ramp: { param: 'delayMs', from: 0, to: oneWay(250), shape: 'linear' } },
];

/**
 * A Wi-Fi hop as Jansen §6 measured it: few losses, in bursts (the MAC retransmits most), and delay
 * spikes from the retransmissions. Near the access point (same room): 0.4 % lost in bursts of 2, ±10 ms;
 * far from it (outside the room): 3.8 % in bursts of 4, ±80 ms, and the RTT's peaks the paper describes
 * (`retransmissionSpikes`). The paper gives no loss or delay figures for the hop itself; these are ours:
 * loss and jitter alone (1.6 % and ±40 ms, then 3.8 % and ±80 ms) moved neither frame rate nor width.
 */
const WIFI = {
  near: { jitterMs: 10, loss: { model: 'gilbert-elliott', p: 0.002, r: 0.5, badPct: 100, goodPct: 0 } },
  far: { jitterMs: 80, loss: { model: 'gilbert-elliott', p: 0.01, r: 0.25, badPct: 100, goodPct: 0 } },
} satisfies Record<string, Conditions>;
/**
 * Far from the access point, the MAC's retransmissions "quickly rise [the RTT] to 2x or 3x the previous
 * value before dropping back down" (Jansen §6.2, Fig. 18): every 10 s of the far minute from `from`, the
 * path's RTT is taken to twice or three times `rttMs` (alternately) for 2 s, on p1's links (the hop's).
 * p1's two links carry half of each round trip, so each gets (2m − 1) / 4 of the RTT for a peak of m.
 */
function retransmissionSpikes(from: number, rttMs: number): Step[] {
  return [5, 15, 25, 35, 45, 55].flatMap((offset, j): Step[] => {
    const peak = j % 2 === 0 ? 2 : 3;
    return [
      { at: from + offset, participant: 1, set: { delayMs: (rttMs * (2 * peak - 1)) / 4 } },
      { at: from + offset + 2, participant: 1, set: { delayMs: oneWay(rttMs / 2) } },
    ];
  });
}

/** Wired paths of Jansen's Table 7 by RTT: both ends in New York, New York–Oregon, New York–Sydney. */
const WIRED_RTT = [
  { name: 'short', rttMs: 4 },
  { name: 'medium', rttMs: 78 },
  { name: 'high', rttMs: 215 },
];

export const LIBRARY: Scenario[] = [
  {
    ...base,
    id: 'static-bw',
    title: 'Static bandwidth caps',
    source: `${JANSEN}, §4.1, Fig. 3`,
    description: 'Unconstrained, then 1500, 750 and 250 kbit/s in both directions, 5 minutes each.',
    participants: pair(),
    links: both,
    schedule: steps([null, 1500, 750, 250], 300, (rateKbps) => ({ rateKbps })),
    durationS: 1200,
    paper: {
      figures: [
        { metric: 'utilization', value: 80, label: 'mean rate / cap under a static cap', source: '§4.1, Fig. 5' },
        { metric: 'dataRateKbps', value: 2500, label: 'unconstrained (Chrome cap at the time)', source: '§4.1, Fig. 5' },
        { metric: 'steadyAfterS', value: 10, label: 'before data flows at 250 kbit/s', source: '§4.1, Fig. 5' },
      ],
      findings: ['rate settles at about 80 % of a static cap', 'about 10 s of ramp-up; at 250 kbit/s about 10 s before data flows'],
      // 2500 unconstrained, then 80 % of each cap (§4.1, Fig. 5).
      rates: [
        { fromS: 10, toS: 300, kbps: 2500, source: "§4.1, Fig. 5: unconstrained, at Chrome's 2500 kbit/s limit" },
        { fromS: 300, toS: 600, kbps: 1200, source: '§4.1, Fig. 5: 80 % of 1500 kbit/s' },
        { fromS: 600, toS: 900, kbps: 600, source: '§4.1, Fig. 5: 80 % of 750 kbit/s' },
        { fromS: 910, toS: 1200, kbps: 200, source: '§4.1, Fig. 5: 80 % of 250 kbit/s, after 10 s without data' },
      ],
    },
  },
  {
    ...base,
    id: 'static-delay',
    title: 'Static added latency',
    source: `${SINGH}, §IV; ${JANSEN}, Fig. 6`,
    description: '0, 50, 100, 200 and 500 ms one-way delay in both directions, 2 minutes each.',
    participants: pair(),
    links: both,
    schedule: steps([0, 50, 100, 200, 500], 120, (ms) => ({ delayMs: oneWay(ms) })),
    durationS: 600,
    paper: { figures: [], findings: ['a constant added latency alone does not lower the data rate'] },
  },
  {
    ...base,
    id: 'static-loss',
    title: 'Static random loss',
    source: `${SINGH}, §IV; ${JANSEN}, §4.1`,
    description: '0, 1, 5, 10 and 20 % random loss in both directions, 2 minutes each.',
    participants: pair(),
    links: both,
    schedule: steps([0, 1, 5, 10, 20], 120, (pct) => ({ loss: pathLoss(pct) })),
    durationS: 600,
    paper: {
      figures: [
        { metric: 'dataRateKbps', value: 50, label: 'at 10 % loss: converges to a minimum, almost only audio', source: '§4.1, Fig. 7' },
      ],
      findings: ['up to 5 % loss barely lowers the rate', '10 % and more cut it hard'],
      rates: [{ fromS: 420, toS: 480, kbps: 50, source: '§4.1, Fig. 7: 10 % loss, converged to 50 kbit/s' }],
    },
  },
  {
    ...base,
    id: 'bw-steps',
    title: 'Bandwidth changing every minute',
    source: `${JANSEN}, §4.2, Fig. 8`,
    description: '1000, 3000, 500, 1500, 1000 kbit/s, one minute each.',
    participants: pair(),
    links: both,
    schedule: steps([1000, 3000, 500, 1500, 1000], 60, (rateKbps) => ({ rateKbps })),
    durationS: 300,
    paper: {
      figures: [
        { metric: 'utilization', value: 77, label: 'mean rate / cap with changing caps', source: '§4.2, Fig. 8' },
        { metric: 'steadyAfterS', value: 16, label: 'after the cap rose to 3000 kbit/s at 1:00', source: '§4.2, Fig. 8' },
        { metric: 'steadyAfterS', value: 18, label: 'after the cap rose to 1500 kbit/s at 3:00', source: '§4.2, Fig. 8' },
      ],
      findings: ['rate grows about 5 %/s after capacity is freed', '16 s and 18 s to steady state after bandwidth is freed'],
      rates: [
        { fromS: 76, toS: 120, kbps: 2500, source: '§4.2, Fig. 8: 2500 kbit/s reached 16 s after the cap rose to 3000' },
        { fromS: 198, toS: 240, kbps: 1350, source: '§4.2, Fig. 8: 1350 kbit/s reached 18 s after the cap rose to 1500' },
      ],
    },
  },
  {
    ...base,
    id: 'latency-ramps',
    title: 'Latency ramps (Table 2)',
    source: `${JANSEN}, §4.2, Table 2, Fig. 9`,
    description: 'One-way latency changed every 0.5 s: 0→250 ms exponential, hold, 250→0 linear, 0→500 linear, 500→0 exponential.',
    participants: pair(),
    links: both,
    schedule: [
      { at: 0, until: 60, ramp: { param: 'delayMs', from: 0, to: oneWay(250), shape: 'exponential' } },
      { at: 120, until: 180, ramp: { param: 'delayMs', from: oneWay(250), to: 0, shape: 'linear' } },
      { at: 180, until: 240, ramp: { param: 'delayMs', from: 0, to: oneWay(500), shape: 'linear' } },
      { at: 240, until: 300, ramp: { param: 'delayMs', from: oneWay(500), to: 0, shape: 'exponential' } },
    ],
    durationS: 300,
    paper: { figures: [], findings: ['GCC reacts to changes of delay, not to delay itself', 'a large drop in rate at minute 3'] },
  },
  {
    ...base,
    id: 'loss-steps',
    title: 'Loss changing every minute',
    source: `${JANSEN}, §4.2, Fig. 10`,
    description: '10, 0, 5, 7.5 and 15 % random loss, one minute each.',
    participants: pair(),
    links: both,
    schedule: steps([10, 0, 5, 7.5, 15], 60, (pct) => ({ loss: pathLoss(pct) })),
    durationS: 300,
    paper: {
      figures: [{ metric: 'dataRateKbps', value: 2500, label: 'about 30 s after the loss stops at 1:00', source: '§4.2, Fig. 10' }],
      findings: ['the rate recovers when loss stops and falls again above 10 %', '5 % and 7.5 % loss only slightly drop the rate'],
      rates: [
        { fromS: 55, toS: 60, kbps: 550, source: '§4.2, Fig. 10: about 550 kbit/s under 10 % loss' },
        { fromS: 90, toS: 120, kbps: 2500, source: '§4.2, Fig. 10: 2500 kbit/s about 30 s after the loss stopped' },
      ],
    },
  },
  {
    ...base,
    id: 'handoff',
    title: 'Handoff: RTT and asymmetric bandwidth (Table 3)',
    source: `${JANSEN}, §4.2, Table 3, Fig. 11`,
    description: 'Per minute RTT and downlink/uplink: 60 ms 3000/3000; 200 ms 750/250; 500 ms 250/100; 150 ms 1250/500; 200 ms 750/250.',
    participants: pair(),
    links: both,
    schedule: (
      [
        [60, 3000, 3000],
        [200, 750, 250],
        [500, 250, 100],
        [150, 1250, 500],
        [200, 750, 250],
      ] as const
    ).flatMap(([rtt, down, up], k): Step[] => [
      { at: k * 60, on: 'downlink', set: { delayMs: oneWay(rtt / 2), rateKbps: down } },
      { at: k * 60, on: 'uplink', set: { delayMs: oneWay(rtt / 2), rateKbps: up } },
    ]),
    durationS: 300,
    paper: {
      figures: [{ metric: 'utilization', value: 69, label: 'mean rate / cap with the handoff schedule', source: '§4.2, Fig. 11' }],
      findings: ['at 250/100 kbit/s (minute 2) the RTT rises to more than twice the set value'],
    },
  },
  ...(['VP8', 'VP9', 'H264'] as const).map((codec, k): Scenario => {
    const table5 = [
      { rate: 1439.7, rtt: 83.6, fps: 47.4, loss: 2.51, res: '858x483' },
      { rate: 1422.5, rtt: 84.2, fps: 45.5, loss: 2.44, res: '892x502' },
      { rate: 1154.2, rtt: 77.6, fps: 36.1, loss: 2.43, res: '1279x719' },
    ][k]!;
    return {
      ...base,
      id: `codecs-${codec.toLowerCase()}`,
      title: `Codec under changing conditions: ${codec} (Table 4)`,
      source: `${JANSEN}, §4.4, Tables 4 and 5, Fig. 16`,
      description: 'Per minute RTT/rate/loss: 0/∞/0; 0/1250/0; 0→500→0/1250/0; 0/∞/0; 0/∞/15 %; 0/∞/0; 0→500/1250/0.',
      participants: pair(codec),
      links: both,
      schedule: TABLE_4,
      durationS: 420,
      paper: {
        figures: [
          { metric: 'dataRateKbps', value: table5.rate, label: `${codec}, whole run`, source: 'Table 5' },
          { metric: 'rttMs', value: table5.rtt, label: `${codec}, whole run`, source: 'Table 5' },
          { metric: 'fps', value: table5.fps, label: `${codec}, 1080p50 source`, source: 'Table 5' },
          { metric: 'lossPct', value: table5.loss, label: `${codec}, whole run`, source: 'Table 5' },
          { metric: 'resolution', value: table5.res, label: `${codec}, mean received`, source: 'Table 5' },
        ],
        findings: ['H.264 keeps resolution and drops frame rate; VP8/VP9 trade both'],
        rates: [{ fromS: 0, toS: 420, kbps: table5.rate, source: `Table 5: ${codec}'s mean over the run` }],
      },
    };
  }),
  {
    ...base,
    id: 'rtp-fairness',
    title: 'Three calls sharing 2000 kbit/s',
    source: `${JANSEN}, §4.3, Fig. 12`,
    description: 'One call on a 2000 kbit/s bottleneck; call 2 joins at 1:00, call 3 at 2:00 and leaves at 4:00.',
    participants: pair(),
    links: { mode: 'shared', bottleneck: { rateKbps: 2000, delayMs: 0 } },
    crossTraffic: [
      { kind: 'call', at: 60 },
      { kind: 'call', at: 120, until: 240 },
    ],
    durationS: 300,
    paper: {
      figures: [
        { metric: 'jainCalls', value: 0.98, label: '2 calls', source: '§4.3, Fig. 12' },
        { metric: 'jainCalls', value: 0.94, label: '3 calls', source: '§4.3, Fig. 12' },
        { metric: 'totalKbps', value: 1560, label: 'the calls together: 78 % of 2000 kbit/s', source: '§4.3, Fig. 12' },
      ],
      findings: ['a late joiner converges to its fair share within about a minute'],
    },
  },
  {
    ...base,
    id: 'tcp-fairness',
    title: 'A call against a TCP bulk flow',
    source: `${JANSEN}, §4.3, Fig. 13`,
    description: 'One call on a 2000 kbit/s bottleneck for 12 minutes; an iperf3 TCP flow from 1:00 to 11:00.',
    participants: pair(),
    links: { mode: 'shared', bottleneck: { rateKbps: 2000, delayMs: 0 } },
    crossTraffic: [{ kind: 'tcp', at: 60, until: 660, tool: 'iperf3' }],
    durationS: 720,
    paper: {
      figures: [
        { metric: 'jainCalls', value: 0.79, label: 'call vs TCP, 1:00–11:00', source: '§4.3, Fig. 13' },
        { metric: 'dataRateKbps', value: 1408, label: 'the call, 1:00–11:00', source: '§4.3, Fig. 13' },
        { metric: 'tcpKbps', value: 451, label: 'the TCP flow, 1:00–11:00', source: '§4.3, Fig. 13' },
      ],
      findings: ['the call takes the larger share against TCP'],
    },
  },
  ...[2, 3, 4].map((n): Scenario => ({
    ...base,
    id: `mesh-${n}`,
    title: `${n}-party full mesh`,
    source: `${JANSEN}, §4.5, Fig. 14`,
    description: `${n} participants, each sending to and receiving from every other, unconstrained links.`,
    participants: { count: n, topology: n === 2 ? 'pair' : 'mesh', codec: 'VP8', video: MULTIPARTY_VIDEO },
    links: both,
    durationS: 180,
    paper: {
      figures: [
        ...(n === 2 ? [] : [{ metric: 'rateRatio', value: n === 3 ? 2.03 : 2.77, label: `rate / 2-party rate`, source: '§4.5, Fig. 14' }]),
        { metric: 'startupS', value: 15, label: 'time to a stable data rate (through an SFU: 30 s)', source: '§4.4' },
      ],
      findings: n === 4 ? ['volatile rate: each peer encodes 3 and decodes 3 streams'] : [],
    },
  })),
  ...[2, 3, 4].map((n): Scenario => ({
    ...base,
    id: `sfu-${n}`,
    title: `${n}-party call through an SFU`,
    source: `${JANSEN}, §4.4, Fig. 15`,
    description: `${n} participants, each sending once to a selective forwarding unit (Janus; LiveKit with --sfu livekit) and receiving the others from it, unconstrained links: compare with mesh-${n}.`,
    participants: { count: n, topology: 'sfu', codec: 'VP8', video: MULTIPARTY_VIDEO },
    links: both,
    durationS: 180,
    paper: {
      figures: [
        ...(n === 2
          ? []
          : [{ metric: 'downUpRatio', value: n === 3 ? 2.0 : 2.95, label: 'downlink rate / uplink rate', source: '§4.4, Fig. 15' }]),
        { metric: 'startupS', value: 30, label: 'time to a stable data rate (a mesh: 15 s)', source: '§4.4' },
      ],
      findings: [
        'each participant uploads its stream once',
        'relaying adds latency',
        'a stable rate takes longer to reach than in a mesh (30 s against 15 s)',
      ],
    },
  })),
  {
    ...base,
    id: 'mixer-3',
    title: '3-party call through a central forwarder',
    source: `${SINGH}, §IV-F, Table VII`,
    description:
      "3 participants through a selective forwarding unit (Janus), VGA (at 15 fps; Singh's 30) and at most 2 Mbit/s as Singh's, 13 ms of RTT end to end, links otherwise unconstrained, 5 minutes. Singh's forwarder passed each receiver's RTCP back to the sender (a report per receiver); Janus terminates RTCP, so each sender hears the SFU only, and its RTT is the one to the SFU.",
    participants: { count: 3, topology: 'sfu', codec: 'VP8', video: { ...MULTIPARTY_VIDEO, height: 480 }, maxBitrateKbps: 2000 },
    links: { mode: 'per-participant', uplink: { ...open, delayMs: oneWay(6.5) }, downlink: { ...open, delayMs: oneWay(6.5) } },
    durationS: 300,
    paper: {
      figures: [
        { metric: 'dataRateKbps', value: 630.3, label: 'per peer, mean of A, B and C (604.3, 403.7, 882.9 kbit/s)', source: 'Table VII' },
        {
          metric: 'rttMs',
          value: 13.1,
          label: 'end to end through the forwarder, mean of A, B and C (13.8, 12.6, 12.8 ms)',
          source: 'Table VII',
        },
        { metric: 'lossPct', value: 0.06, label: 'mean of A, B and C (0.05, 0.06, 0.07 %)', source: 'Table VII' },
      ],
      findings: [
        'the peers get unequal rates (A 604, B 404, C 883 kbit/s): the aggregate does not always fit the links',
        'a sender gets one feedback report per receiver, and may get conflicting ones',
      ],
    },
  },
  {
    ...base,
    id: 'mobile',
    title: 'A weaker device under changing conditions (Table 4)',
    source: `${JANSEN}, §5.2, Tables 4 and 6, Fig. 17`,
    description:
      "A pair under Table 4's schedule, p1 a weaker device: its page held to a fifth of a core (where Chromium encodes and decodes; a third carried 480p30 VP8 with no effect on this 2-core host) and both ends at 640x480 30 fps, the mobiles' camera limit. p0 stands for the paper's Chrome column, p1 for iOS and Android.",
    participants: { count: 2, topology: 'pair', codec: 'VP8', video: { width: 640, height: 480, fps: 30 }, cpu: [null, 0.2] },
    links: both,
    schedule: TABLE_4,
    durationS: 420,
    paper: {
      figures: [
        { metric: 'dataRateKbps', value: 1237.8, label: 'Chrome (p0 here)', source: 'Table 6' },
        { metric: 'dataRateKbps', value: 1022.5, label: 'iOS (p1 here)', source: 'Table 6' },
        { metric: 'dataRateKbps', value: 1047.3, label: 'Android (p1 here)', source: 'Table 6' },
        { metric: 'rttMs', value: 80.0, label: 'Chrome (p0 here)', source: 'Table 6' },
        { metric: 'rttMs', value: 95.4, label: 'iOS (p1 here)', source: 'Table 6' },
        { metric: 'rttMs', value: 100.0, label: 'Android (p1 here)', source: 'Table 6' },
        { metric: 'fps', value: 42.96, label: 'Chrome, 50 fps source (p0 here)', source: 'Table 6' },
        { metric: 'fps', value: 27.9, label: 'iOS, 30 fps camera (p1 here)', source: 'Table 6' },
        { metric: 'fps', value: 27.8, label: 'Android, 30 fps camera (p1 here)', source: 'Table 6' },
        { metric: 'lossPct', value: 2.3, label: 'Chrome (p0 here)', source: 'Table 6' },
        { metric: 'lossPct', value: 2.2, label: 'iOS and Android (p1 here)', source: 'Table 6' },
        { metric: 'resolution', value: '602x339', label: 'iOS (p1 here)', source: 'Table 6' },
        { metric: 'resolution', value: '675x380', label: 'Android (p1 here)', source: 'Table 6' },
        { metric: 'startupS', value: 20, label: 'mobiles to their highest rate (Chrome: 10 s)', source: '§5.2' },
      ],
      findings: [
        'the weaker devices send less and see a higher RTT than Chrome',
        'they take longer to reach their highest rate (20 s against 10 s)',
      ],
    },
  },
  {
    ...base,
    id: 'wireless',
    title: 'A Wi-Fi hop near and far from the access point',
    source: `${JANSEN}, §6, Table 7, Figs. 18–20`,
    description:
      "p1 behind a Wi-Fi hop: bursty loss (Gilbert-Elliott) and jitter, light near the access point and heavy far from it, where the retransmissions also take the RTT to 2 or 3 times its value for 2 s every 10 s; on a short, a medium (78 ms) and a high (215 ms) RTT path; a minute each: short near, short far, medium near, medium far, high near, high far. The paper's finding compares near and far at each RTT.",
    participants: pair(),
    links: both,
    schedule: WIRED_RTT.flatMap(({ rttMs }, k): Step[] => [
      { at: k * 120, set: { delayMs: oneWay(rttMs / 2) } },
      { at: k * 120, participant: 1, set: WIFI.near },
      { at: k * 120 + 60, participant: 1, set: WIFI.far },
      ...retransmissionSpikes(k * 120 + 60, rttMs),
    ]),
    durationS: 360,
    paper: {
      figures: [
        { metric: 'dataRateKbps', value: 2657.7, label: 'wired baseline, mean of four paths (2305–3001 kbit/s)', source: 'Table 7' },
      ],
      findings: [
        'peaks in RTT line up with drops in frame rate',
        'far from the access point on the ~78 ms path, frame rate and frame width are more than 25 % lower than near it',
        'at a short RTT the difference is about 10 %',
      ],
    },
  },
  ...[1000, 5000].map((rateKbps): Scenario => ({
    ...base,
    id: `queue-${rateKbps / 1000}mbps`,
    title: `Bottleneck queue depth at ${rateKbps / 1000} Mbit/s`,
    source: `${SINGH}, §IV-C, Table III`,
    description: 'Queue depth 100 ms, 1 s and 10 s (buffer-bloat), 2 minutes each.',
    participants: pair(),
    links: { mode: 'shared', bottleneck: { rateKbps, delayMs: 0, queueMs: 100 } },
    schedule: steps([100, 1000, 10_000], 120, (queueMs) => ({ queueMs })),
    durationS: 360,
    paper: {
      figures: [
        { metric: 'utilization', value: 40, label: 'average bandwidth utilization (RRTCC, 2013)', source: 'Singh §IV-C, Table III' },
      ],
      findings: ['queue depth does not change the utilization'],
    },
  })),
];

export function findScenario(id: string): Scenario | undefined {
  return LIBRARY.find((s) => s.id === id);
}
